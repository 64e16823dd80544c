/**
 * Whether the page is driven by automation rather than visited by a person. Sent with every
 * batch as `metadata.automation`; the server keeps such sessions viewable but out of every
 * count, issue and alert (docs/hostile-input.md#automated-traffic). The user-agent half is
 * also the server's check (lib/ingest/session-automation.ts), so both sides mark the same
 * browsers. Pure apart from `detectAutomation`'s reads, so Node tests drive it.
 */

export type AutomationKind = 'reproduction' | 'webdriver' | 'bot'

/**
 * The global a generated reproduction test sets with `page.addInitScript` before its first
 * navigation (docs/reproduction.md): its own traffic is then marked even in a browser that
 * hides `navigator.webdriver`.
 */
export const AUTOMATION_GLOBAL = '__SESSION_REPLAY_AUTOMATION__'

/** Real user agents are under 300 characters; only this much of one is ever looked at. */
export const USER_AGENT_CHECK_MAX = 1024

/**
 * Lower-case fragments of the user agents of headless browsers and well-known crawlers and
 * link previewers. A fixed list matched with `includes` on a bounded string: linear, no
 * pattern to backtrack. Each fragment is specific enough not to occur in a person's browser
 * (no bare "bot": the Cubot phone brand carries it).
 */
const AUTOMATED_USER_AGENT_FRAGMENTS = [
  'headlesschrome',
  'phantomjs',
  'slimerjs',
  'googlebot',
  'google-inspectiontool',
  'adsbot-google',
  'mediapartners-google',
  'storebot-google',
  'bingbot',
  'bingpreview',
  'msnbot',
  'slurp',
  'duckduckbot',
  'baiduspider',
  'yandexbot',
  'yandex.com/bots',
  'exabot',
  'applebot',
  'facebookexternalhit',
  'facebookbot',
  'meta-externalagent',
  'twitterbot',
  'linkedinbot',
  'slackbot',
  'discordbot',
  'telegrambot',
  'pinterestbot',
  'redditbot',
  'ahrefsbot',
  'semrushbot',
  'mj12bot',
  'dotbot',
  'petalbot',
  'bytespider',
  'gptbot',
  'chatgpt-user',
  'oai-searchbot',
  'claudebot',
  'claude-web',
  'anthropic-ai',
  'perplexitybot',
  'ccbot',
  'amazonbot',
  'chrome-lighthouse',
  'pingdom',
  'uptimerobot',
  'statuscake',
  'site24x7',
  'datadogsynthetics',
  'newrelicpinger',
  'checkly',
  'crawler',
  'spider',
] as const

/** 'bot' when the user agent is a known headless browser or crawler, otherwise null. */
export function userAgentAutomation(userAgent: string | null | undefined): 'bot' | null {
  if (typeof userAgent !== 'string' || userAgent.length === 0) return null
  const bounded = userAgent.slice(0, USER_AGENT_CHECK_MAX).toLowerCase()
  for (const fragment of AUTOMATED_USER_AGENT_FRAGMENTS) if (bounded.includes(fragment)) return 'bot'
  return null
}

/** What the recorder reads to decide; a plain object in tests. */
export interface AutomationSignals {
  /** `window[AUTOMATION_GLOBAL]` */
  marker: unknown
  /** `navigator.webdriver` */
  webdriver: unknown
  /** `navigator.userAgent` */
  userAgent: unknown
}

/**
 * The automation this page is under, decided once at init. Our own reproduction's marker
 * comes first (it is what an operator filters for), then the WebDriver flag browsers set
 * when remote-controlled, then the user agent.
 */
export function classifyAutomation(signals: AutomationSignals): AutomationKind | null {
  if (signals.marker === 'reproduction') return 'reproduction'
  if (signals.webdriver === true) return 'webdriver'
  return userAgentAutomation(typeof signals.userAgent === 'string' ? signals.userAgent : null)
}

/** Reads the signals from the live page; a getter that throws counts as absent. */
export function detectAutomation(win: Window): AutomationKind | null {
  const read = (get: () => unknown): unknown => {
    try {
      return get()
    } catch {
      return undefined
    }
  }
  return classifyAutomation({
    marker: read(() => (win as unknown as Record<string, unknown>)[AUTOMATION_GLOBAL]),
    webdriver: read(() => win.navigator.webdriver),
    userAgent: read(() => win.navigator.userAgent),
  })
}
