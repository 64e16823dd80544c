import { IncomingWebhook, IncomingWebhookHTTPError, IncomingWebhookRequestError } from '@slack/webhook'
import { labelFor } from '@/lib/webhooks/labels'

/**
 * Slack messages of alerts (Block Kit) and their sending. Titles and evidence come from
 * recorded pages, so everything a page wrote is escaped before it reaches mrkdwn: `&`, `<`
 * and `>` are the only characters Slack parses specially, and with `<` escaped no
 * `<!channel>`, `<@U…>` or `<url|text>` can be smuggled in. Escaping alone is not enough:
 * by default Slack also turns bare URLs, `#channel` names and `@name`s in mrkdwn into live
 * links and mentions, so every mrkdwn text is sent `verbatim` (only our own `<url|text>`
 * links, which we write, stay links). The header block is plain text, which Slack never parses.
 */

/** Slack's mrkdwn control characters, as its docs ask them to be escaped. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Cuts to `max` characters (Slack refuses longer block texts), marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/**
 * Escapes, then cuts to `max` characters of escaped text without splitting an entity: cut
 * before escaping, a title of `&`s would grow fivefold past Slack's limits.
 */
export function escapeClip(text: string, max: number): string {
  const escaped = escapeMrkdwn(text)
  if (escaped.length <= max) return escaped
  let out = ''
  for (const ch of text) {
    const next = escapeMrkdwn(ch)
    if (out.length + next.length > max - 1) break
    out += next
  }
  return `${out}…`
}

type TextObject =
  | { type: 'plain_text'; text: string; emoji?: boolean }
  | { type: 'mrkdwn'; text: string; verbatim: true }
export type SlackBlock =
  | { type: 'header'; text: TextObject }
  | { type: 'section'; text?: TextObject; fields?: TextObject[] }
  | { type: 'context'; elements: TextObject[] }
  | {
      type: 'actions'
      elements: { type: 'button'; text: TextObject; url: string; action_id: string; style?: 'primary' }[]
    }
  | { type: 'divider' }

export interface SlackMessage {
  /** The notification text (and what clients without blocks show). */
  text: string
  blocks: SlackBlock[]
  /** Nothing a page wrote is ever previewed in the channel. */
  unfurl_links: false
  unfurl_media: false
}

export interface SingleAlert {
  /** What happened, e.g. "New issue", "Issue regressed". */
  heading: string
  ruleName: string
  title: string
  priority: string | null
  kind: string | null
  sessions: number | null
  occurrences: number | null
  evidence: string | null
  issueUrl: string | null
  replayUrl: string | null
}

const plain = (text: string): TextObject => ({ type: 'plain_text', text, emoji: false })
// Verbatim: Slack keeps our escaping and explicit links but auto-links nothing in the text.
const md = (text: string): TextObject => ({ type: 'mrkdwn', text, verbatim: true })
const noUnfurl = { unfurl_links: false, unfurl_media: false } as const
// Slack's limits: header text 150, section text 3000, a field 2000, button text 75, URL 3000.
// The maxima below are of escaped text, so no block can pass them whatever a page wrote.
const HEADER_MAX = 150
const TITLE_MAX = 500
const EVIDENCE_MAX = 600
const FIELD_MAX = 200
const RULE_NAME_MAX = 300
export const SECTION_MAX = 3000

export function singleAlertMessage(alert: SingleAlert): SlackMessage {
  const fields: TextObject[] = []
  if (alert.priority) fields.push(md(`*Priority*\n${escapeClip(alert.priority, FIELD_MAX)}`))
  if (alert.kind) fields.push(md(`*Kind*\n${escapeClip(alert.kind, FIELD_MAX)}`))
  if (alert.sessions !== null) fields.push(md(`*Sessions*\n${alert.sessions}`))
  if (alert.occurrences !== null) fields.push(md(`*Occurrences*\n${alert.occurrences}`))
  const blocks: SlackBlock[] = [
    { type: 'header', text: plain(clip(`${alert.heading}: ${alert.title}`, HEADER_MAX)) },
    { type: 'section', text: md(`*${escapeClip(alert.title, TITLE_MAX)}*`) },
  ]
  if (fields.length > 0) blocks.push({ type: 'section', fields })
  if (alert.evidence)
    blocks.push({ type: 'section', text: md(`> ${escapeClip(alert.evidence, EVIDENCE_MAX)}`) })
  const buttons = []
  if (alert.issueUrl)
    buttons.push({
      type: 'button' as const,
      text: plain('Open issue'),
      url: alert.issueUrl,
      action_id: 'open_issue',
      style: 'primary' as const,
    })
  if (alert.replayUrl)
    buttons.push({
      type: 'button' as const,
      text: plain('Watch replay'),
      url: alert.replayUrl,
      action_id: 'watch_replay',
    })
  if (buttons.length > 0) blocks.push({ type: 'actions', elements: buttons })
  blocks.push({ type: 'context', elements: [md(`Alert rule: ${escapeClip(alert.ruleName, RULE_NAME_MAX)}`)] })
  return { text: escapeClip(`${alert.heading}: ${alert.title}`, HEADER_MAX), blocks, ...noUnfurl }
}

export interface DigestItem {
  title: string
  count: number
  url: string | null
}

export interface DigestAlert {
  ruleName: string
  /** e.g. "New issues". */
  heading: string
  windowStart: Date
  windowMinutes: number
  /** Events the digest covers, and distinct subjects (issues or signals) among them. */
  events: number
  subjects: number
  top: DigestItem[]
  historyUrl: string | null
}

/** One line per top item, then "and M more": one message however large the flood. */
export function digestMessage(digest: DigestAlert): SlackMessage {
  const from = digest.windowStart.toISOString().slice(11, 16)
  const summary = `${digest.events} ${digest.events === 1 ? 'event' : 'events'} (${digest.subjects} distinct) in the ${digest.windowMinutes} min from ${from} UTC`
  // Lines are added while the section stays under Slack's limit; those left out count as "more".
  const lines: string[] = []
  let length = 0
  for (const item of digest.top) {
    const title = escapeClip(item.title, 150)
    const label = item.url && item.url.length <= 500 ? `<${item.url}|${title}>` : title
    const line = `• ${label}${item.count > 1 ? ` ×${item.count}` : ''}`
    if (length + line.length + 1 > SECTION_MAX) break
    lines.push(line)
    length += line.length + 1
  }
  const more = digest.subjects - lines.length
  const blocks: SlackBlock[] = [
    { type: 'header', text: plain(clip(`${digest.heading}: digest`, HEADER_MAX)) },
    { type: 'section', text: md(`*${escapeMrkdwn(summary)}*`) },
  ]
  if (lines.length > 0) blocks.push({ type: 'section', text: md(lines.join('\n')) })
  if (more > 0) blocks.push({ type: 'context', elements: [md(`and ${more} more`)] })
  if (digest.historyUrl)
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: plain('Open rule history'),
          url: digest.historyUrl,
          action_id: 'open_history',
        },
      ],
    })
  blocks.push({
    type: 'context',
    elements: [md(`Alert rule: ${escapeClip(digest.ruleName, RULE_NAME_MAX)}`)],
  })
  return { text: escapeMrkdwn(`${digest.heading}: ${summary}`), blocks, ...noUnfurl }
}

/**
 * The message as sent: every mrkdwn text verbatim and no unfurling, whatever the stored body
 * says (bodies queued before messages carried these are sent under the same rule).
 */
export function asSentToSlack(message: SlackMessage): SlackMessage {
  const text = (t: TextObject): TextObject => (t.type === 'mrkdwn' ? { ...t, verbatim: true } : t)
  const blocks = message.blocks.map((block): SlackBlock => {
    if (block.type === 'section')
      return { ...block, text: block.text && text(block.text), fields: block.fields?.map(text) }
    if (block.type === 'context') return { ...block, elements: block.elements.map(text) }
    return block
  })
  return { ...message, blocks, ...noUnfurl }
}

export interface SlackSendOutcome {
  ok: boolean
  status: number | null
  /** `bad_status:NNN`, `rate_limited`, `timeout`, `network_error`, ... */
  label: string | null
  /** Seconds Slack asked to wait (429 Retry-After), when it said. */
  retryAfterSeconds: number | null
  startedAt: Date
  durationMs: number
}

export const SLACK_TIMEOUT_MS = 10_000

/** Retry-After as whole seconds (the HTTP-date form too), or null when absent or malformed. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (!value) return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000))
}

/**
 * One attempt through Slack's own client, with its retries off (our deliveries sweep retries,
 * with the webhooks' delays and bookkeeping) and a deadline. The client's errors carry no
 * headers, so a fetch wrapper keeps the response's Retry-After.
 */
export async function sendSlackMessage(
  url: string,
  body: string,
  options: { timeoutMs?: number } = {},
): Promise<SlackSendOutcome> {
  const startedAt = new Date()
  const started = performance.now()
  let retryAfter: string | null = null
  const done = (o: Omit<SlackSendOutcome, 'startedAt' | 'durationMs' | 'retryAfterSeconds'>) => ({
    ...o,
    retryAfterSeconds: o.status === 429 ? retryAfterSeconds(retryAfter) : null,
    startedAt,
    durationMs: Math.round(performance.now() - started),
  })
  const webhook = new IncomingWebhook(url, {
    timeout: options.timeoutMs ?? SLACK_TIMEOUT_MS,
    retryConfig: { retries: 0 },
    fetch: async (input, init) => {
      const response = await fetch(input, init)
      retryAfter = response.headers.get('retry-after')
      return response
    },
  })
  try {
    await webhook.send(asSentToSlack(JSON.parse(body) as SlackMessage))
    return done({ ok: true, status: 200, label: null })
  } catch (error) {
    if (error instanceof IncomingWebhookHTTPError) {
      const status = error.statusCode
      return done({ ok: false, status, label: status === 429 ? 'rate_limited' : `bad_status:${status}` })
    }
    const cause = error instanceof IncomingWebhookRequestError ? error.original : error
    return done({ ok: false, status: null, label: labelFor(cause) })
  }
}
