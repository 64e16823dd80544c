import { cutText, type TrailTarget } from '@/lib/analysis/trail'
import type { ApiSessionDetails, SessionItem, TimelineItem, TimelineWindow } from '@/lib/sessions/api-views'
import { userLabel } from '@/lib/sessions/views'
import { plural } from './inputs'
import type { UntrustedMarkers } from './untrusted'

/**
 * The readable side of list_sessions and get_session. One line per session or timeline
 * entry; everything recorded on the customer's page (users, URLs, element text, messages,
 * stacks) goes between the result's untrusted-data markers, one span per line. Lines are cut
 * shorter than the structured content (which has the full cut texts), and the whole text stops
 * at SESSION_TEXT_MAX, so one answer stays a small part of an agent's context.
 */

/** Ceiling of a session tool's text: the structured content carries every entry anyway. */
export const SESSION_TEXT_MAX = 20_000
const LINE_CHARS = 240
const STACK_CHARS = 400
const LISTED_ISSUES = 3

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`
}

function offset(ms: number): string {
  return `${ms < 0 ? '-' : '+'}${seconds(Math.abs(ms))}`
}

function oneLine(text: string, max = LINE_CHARS): string {
  return cutText(text.replace(/\s+/g, ' ').trim(), max)
}

function targetText(target: TrailTarget): string {
  const what = target.role ?? target.tag
  const name = target.name || target.text
  return [what, name ? `"${name}"` : null, `(${target.selector})`].filter(Boolean).join(' ')
}

function issueList(session: SessionItem, untrusted: UntrustedMarkers): string {
  if (session.issues.length === 0) return 'no issues'
  const shown = session.issues
    .slice(0, LISTED_ISSUES)
    .map((issue) => `${issue.priority} ${untrusted.wrap(oneLine(issue.title, 120))} (issue ${issue.id})`)
  const more = session.issueCount - shown.length
  return `issues: ${shown.join('; ')}${more > 0 ? `; ${more} more` : ''}`
}

function who(session: SessionItem, untrusted: UntrustedMarkers): string {
  return untrusted.wrap(oneLine(userLabel(session.user), 120))
}

export function sessionLine(session: SessionItem, untrusted: UntrustedMarkers): string {
  const pages = session.pageCount === null ? 'not analysed' : plural(session.pageCount, 'page')
  return `- ${session.startedAt} · ${seconds(session.durationMs)} · ${pages} · ${session.status}${session.degraded ? ' · degraded recording' : ''}${session.automation ? ` · automated (${session.automation})` : ''} · user ${who(session, untrusted)} · ${issueList(session, untrusted)} (id ${session.id})`
}

/** The moments a search matched, one indented line each, linked to the replay at that offset. */
export function momentLines(session: SessionItem, untrusted: UntrustedMarkers): string[] {
  return (session.moments ?? []).map(
    (moment) =>
      `    matched ${offset(moment.offsetMs)} #${moment.position} ${moment.kind} ${untrusted.wrap(oneLine(moment.label))} (${session.replayUrl}?t=${moment.offsetMs})`,
  )
}

export function sessionFacts(session: ApiSessionDetails, untrusted: UntrustedMarkers): string[] {
  const { counts } = session
  const figure = (n: number | null) => (n === null ? 'unknown' : String(n))
  return [
    `Session ${session.id} (${session.status}), started ${session.startedAt}, last activity ${session.lastActivityAt}, ${seconds(session.durationMs)}, ${session.pageCount === null ? 'not analysed yet' : plural(session.pageCount, 'page')}, ${plural(session.eventCount, 'event')}`,
    `User: ${who(session, untrusted)} · Browser: ${untrusted.wrap(oneLine(session.userAgent ?? 'unknown', 160))}`,
    // Sent by the recorder like every batch field, so marked.
    `Release: ${session.release === null ? 'none recorded' : untrusted.wrap(oneLine(session.release, 200))}`,
    ...(session.degraded
      ? [
          'Recording: degraded, the recorder stopped recording a part of the page that changed too fast; the replay misses its changes',
        ]
      : []),
    // Our own label (an enum): why the session is kept out of every count.
    ...(session.automation ? [`Automated traffic: ${session.automation}, not counted`] : []),
    `Entry URL: ${untrusted.wrap(oneLine(session.entryUrl))}`,
    `Errors: ${figure(counts.errors)} · Rage clicks: ${figure(counts.rageClicks)} · Dead clicks: ${figure(counts.deadClicks)}`,
    `Summary (${session.summary.source}): ${untrusted.wrap(session.summary.text)}`,
    `Issues: ${issueList(session, untrusted).replace(/^issues: /, '')}`,
    session.signals.length
      ? `Signals: ${session.signals.map((s) => `${untrusted.wrap(oneLine(s.name, 80))} (signal ${s.id})`).join('; ')}${session.signalCount > session.signals.length ? `; ${session.signalCount - session.signals.length} more` : ''}`
      : 'Signals: none',
    // Built by us from the base URL and the id, so not marked.
    `Replay: ${session.replayUrl}`,
  ]
}

function entryText(entry: TimelineItem): string {
  switch (entry.kind) {
    case 'navigation':
      return `${entry.change === 'load' ? 'loaded' : 'went to'} ${entry.url}`
    case 'click':
      return `${targetText(entry.target)}${entry.count > 1 ? ` ×${entry.count}` : ''}`
    case 'input': {
      const value = entry.masked
        ? `masked, ${entry.length} chars`
        : entry.value === null
          ? `${entry.length} chars`
          : `"${entry.value}"`
      return `${targetText(entry.target)} ← ${entry.checked === null ? value : entry.checked ? 'checked' : 'unchecked'}`
    }
    case 'console':
      return `${entry.level}: ${entry.message}`
    case 'error':
      return `${entry.source}: ${entry.message}`
    case 'request':
      return `${entry.method} ${entry.url} → ${entry.status ?? 'no answer'}${entry.durationMs === null ? '' : ` in ${entry.durationMs}ms`}`
    case 'rage_click':
      return `${targetText(entry.target)} ×${entry.count}`
    case 'dead_click':
      return targetText(entry.target)
    case 'custom':
      return `${entry.tag}${entry.payload === null ? '' : ` ${entry.payload}`}`
  }
}

export function timelineLine(entry: TimelineItem, untrusted: UntrustedMarkers): string {
  const line = `${offset(entry.offsetMs)} #${entry.position} ${entry.kind} ${untrusted.wrap(oneLine(entryText(entry)))}`
  if (entry.kind !== 'error') return line
  // Original frames first: they name the code the agent can open; the minified stack stays as the record.
  const stacks = [
    entry.originalStack
      ? `    original stack: ${untrusted.wrap(cutText(entry.originalStack, STACK_CHARS))}`
      : null,
    entry.stack ? `    stack: ${untrusted.wrap(cutText(entry.stack, STACK_CHARS))}` : null,
  ].filter((text) => text !== null)
  return [line, ...stacks].join('\n')
}

export function timelineHeader(timeline: TimelineWindow): string {
  const window =
    timeline.window.from === null ? 'the whole session' : `${timeline.window.from} to ${timeline.window.to}`
  const kinds = timeline.kinds ? `, kinds ${timeline.kinds.join(', ')}` : ''
  const source =
    timeline.source === 'trail'
      ? ''
      : timeline.source === 'digest'
        ? ' (rebuilt from the digest of an older analysis: fewer kinds and fields)'
        : ' (the session has not been analysed yet)'
  const truncated = timeline.truncated ? ' The recorded timeline stopped at its entry limit.' : ''
  return `Timeline of ${window}${kinds}: ${plural(timeline.entries.length, 'entry', 'entries')}, offsets from the session start${source}.${truncated}`
}

/** Lines joined until SESSION_TEXT_MAX; what is left out is named, never silently dropped. */
export function boundedLines(head: string[], lines: string[], tail: string[]): string {
  let text = head.join('\n')
  const end = tail.join('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (text.length + line.length + end.length + 200 > SESSION_TEXT_MAX) {
      text += `\n(${lines.length - i} more lines left out of this text to keep it short; they are in the structured result)`
      break
    }
    text += `\n${line}`
  }
  return `${text}\n${end}`
}
