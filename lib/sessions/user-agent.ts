import Bowser from 'bowser'

/**
 * Real user agents are under 300 characters; the recorder's value is attacker-written, so
 * only this much is handed to the parser's regular expressions.
 */
export const USER_AGENT_PARSE_MAX = 512

const major = (version: string | undefined) => version?.match(/^\d{1,6}/)?.[0]

/** The OS as people name it: "Windows 10", "iOS 17", "Android 14", "macOS". */
function osName(os: { name?: string; version?: string; versionName?: string }): string | undefined {
  if (!os.name) return undefined
  if (os.name === 'Windows' && os.versionName) return `Windows ${os.versionName}`
  if ((os.name === 'iOS' || os.name === 'Android') && major(os.version))
    return `${os.name} ${major(os.version)}`
  return os.name
}

/**
 * "Chrome 131 on macOS" from a user-agent string; null when there is none or nothing in it
 * is recognised (the raw string is then the best description there is).
 */
export function describeUserAgent(userAgent: string | null | undefined): string | null {
  const ua = userAgent?.slice(0, USER_AGENT_PARSE_MAX).trim()
  if (!ua) return null
  const { browser, os } = Bowser.parse(ua)
  const name = browser.name ? [browser.name, major(browser.version)].filter(Boolean).join(' ') : undefined
  const system = osName(os)
  if (name && system) return `${name} on ${system}`
  return name ?? system ?? null
}
