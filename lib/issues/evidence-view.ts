import type { SymbolicatedEvidence } from '@/lib/analysis/frames'
import { symbolicatedFrames } from './evidence-frames'

/**
 * What session analysis recorded about an issue (`issues.evidence`), turned into the few
 * facts a developer reads first: the error and its stack, the failing request, the clicks.
 * The detectors' evidence is open-ended JSON, so every field is read defensively and unknown
 * ones are left out rather than dumped.
 */

export interface EvidenceFact {
  label: string
  value: string
  /** A URL worth opening (the page the issue happened on). */
  href?: string
}

export interface EvidenceView {
  /** The error message, console message or failing request line, shown prominently. */
  headline: string | null
  facts: EvidenceFact[]
  /** Stack frames, top first. */
  stack: string[]
  /**
   * The stack through the release's source maps (docs/source-maps.md), top first; null when
   * the error was not symbolicated, and the page shows the stack as recorded.
   */
  symbolicated: SymbolicatedEvidence | null
}

const str = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}

/** A recorded stack (text or lines) as its first 20 non-empty lines, trimmed. */
export function stackOf(value: unknown): string[] {
  const lines = Array.isArray(value) ? value : typeof value === 'string' ? value.split('\n') : []
  return lines
    .filter((line): line is string => typeof line === 'string')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, 20)
}

// Evidence recorded before the sentence was stored names only the follow-up's kind.
const FOLLOW_UPS: Record<string, string> = {
  retried: 'The user tried the same action again',
  left: 'The user left the page without doing anything else on it',
  went_on: 'The user went on',
  stayed: 'The user stayed on the page without leaving or retrying',
  too_soon: 'The page ended too soon after it to tell',
  recovered: 'The same request succeeded later on the page',
}

/**
 * What the user did next, in the words of the priority reason (lib/analysis/follow-up.ts): the
 * same decision, so the evidence never says the user was stuck while the replay shows them
 * carrying on. Without a recorded follow-up nothing is claimed.
 */
function followUpFact(e: Record<string, unknown>): string | null {
  const sentence = str(e.followUpSentence)
  if (sentence) return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}`
  const kind = str(e.followUp)
  return kind && Object.hasOwn(FOLLOW_UPS, kind) ? FOLLOW_UPS[kind]! : null
}

export function evidenceView(kind: string, evidence: Record<string, unknown> | null): EvidenceView {
  const e = evidence ?? {}
  const facts: EvidenceFact[] = []
  const add = (label: string, value: string | null) => {
    if (value) facts.push({ label, value })
  }
  let headline: string | null = null

  switch (kind) {
    case 'js_error': {
      const type = str(e.type)
      const message = str(e.message)
      headline = message ? (type ? `${type}: ${message}` : message) : type
      add('Reported by', str(e.mechanism) ?? str(e.source))
      break
    }
    case 'console_error': {
      headline = str(e.message)
      const args = Array.isArray(e.arguments)
        ? e.arguments.filter((a): a is string => typeof a === 'string')
        : []
      if (args.length > 1) add('console.error arguments', args.join(' · '))
      break
    }
    case 'network_error': {
      const method = str(e.method) ?? 'Request'
      const url = str(e.url)
      const status = num(e.status)
      const statusText = str(e.statusText)
      const outcome =
        status === null
          ? null
          : status === 0
            ? 'no response (network error)'
            : `HTTP ${status}${statusText ? ` ${statusText}` : ''}`
      headline = url ? `${method} ${url}${outcome ? ` → ${outcome}` : ''}` : null
      add('Status', outcome)
      // What the response body said (issue 20), when the recorder captured it for this URL.
      add('Server message', str(e.serverMessage))
      add('Error', str(e.error))
      const ms = num(e.durationMs)
      add('Duration', ms === null ? null : duration(ms))
      add('Initiated by', str(e.initiatorType))
      // The page's own console.error about this failure, merged in rather than an issue of its own.
      const logged = Array.isArray(e.consoleErrors)
        ? e.consoleErrors.filter((m): m is string => typeof m === 'string' && m !== '').slice(0, 3)
        : []
      if (logged.length > 0) add('Logged by the page', logged.map((m) => `console.error “${m}”`).join(' · '))
      if (e.isInitial === true) add('Timing', 'Sent while the page loaded')
      break
    }
    case 'rage_click': {
      const clicks = num(e.clicks)
      const ms = num(e.durationMs)
      headline =
        clicks === null
          ? null
          : `${clicks} clicks${ms === null ? '' : ` in ${duration(ms)}`} without a response`
      add('Element', str(e.selector))
      const responded = num(e.respondedClicks)
      add('Clicks that got a response', responded === null ? null : String(responded))
      break
    }
    case 'dead_click': {
      const waited = num(e.waitedMs)
      headline = waited === null ? null : `No visible response within ${duration(waited)} of the click`
      add('Element', str(e.selector))
      break
    }
    default: {
      const rate = num(e.rate)
      const previous = num(e.previousRate)
      if (rate !== null) add('Share of sessions', `${Math.round(rate * 100)}%`)
      if (previous !== null) add('Share in the interval before', `${Math.round(previous * 100)}%`)
      if (Array.isArray(e.issueIds)) add('Issues behind it', String(e.issueIds.length))
    }
  }

  // Issues recorded before `pageUrl` existed kept the page in `url` (except failed requests).
  const page = str(e.pageUrl) ?? (kind === 'network_error' ? null : str(e.url))
  if (page) facts.push({ label: 'Page', value: page, href: /^https?:\/\//.test(page) ? page : undefined })
  add('Page pattern', str(e.pathPattern))
  add('What the user did next', followUpFact(e))
  return { headline, facts, stack: stackOf(e.stack), symbolicated: symbolicatedFrames(evidence) }
}
