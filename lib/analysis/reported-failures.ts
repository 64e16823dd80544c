/**
 * One failure, one issue (issue 34; docs/design/analysis.md §4.3 "console error reporting a
 * failed request"): pages often log a failed request themselves — `fetch('/api/checkout')`
 * answers 500 and the page runs `console.error("Checkout failed", 500)`. Both are the same
 * failure, so the console error joins the request's finding as evidence instead of becoming
 * a second issue. It joins only when both hold:
 *
 * - time: same page visit, logged from just before the response (clocks of the timing API and
 *   of Date.now() differ by a few milliseconds) to REPORT_WINDOW_MS after it;
 * - content: its text (bounded to MAX_MATCH_CHARS) names the status code, or the request's
 *   path, or a failure word together with a word of the request's path ("Checkout failed"
 *   for /api/checkout).
 *
 * Matching scans the bounded text once by hand: no regular expression sees recorded text.
 */

export const REPORT_WINDOW_MS = 2_000
/** Date.now() and performance timing disagree by a little; a log cannot precede its cause by more. */
const CLOCK_SLACK_MS = 250
export const MAX_MATCH_CHARS = 500
const MAX_FAILURES = 32
const MIN_WORD_CHARS = 3
const MAX_PATH_WORDS = 8

const FAILURE_WORDS = new Set([
  'fail',
  'failed',
  'fails',
  'failure',
  'error',
  'errored',
  'errors',
  'unable',
  'cannot',
  'couldn',
])

/** A failed request as analysis reported it (or counted it again). */
export interface ReportedFailure {
  /** The request finding's fingerprint. */
  id: string
  visit: number
  /** When the answer (or the failure) came: the request's start plus its duration. */
  at: number
  /** 0 when no answer came. */
  status: number
  /** The request's path without query, as recorded (`/api/checkout`). */
  path: string
}

/** Lower-case runs of letters and digits, in order; `limit` characters of `text` at most. */
function words(text: string, limit: number): string[] {
  const out: string[] = []
  let current = ''
  const end = Math.min(text.length, limit)
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i)
    const lower = code >= 65 && code <= 90 ? code + 32 : code
    if ((lower >= 97 && lower <= 122) || (lower >= 48 && lower <= 57)) {
      current += String.fromCharCode(lower)
    } else if (current) {
      out.push(current)
      current = ''
    }
  }
  if (current) out.push(current)
  return out
}

const isNumeric = (word: string) => word.charCodeAt(0) >= 48 && word.charCodeAt(0) <= 57

/** The path's words worth naming: not numbers, not ids, not `api` or `v1`. */
function pathWords(path: string): string[] {
  return words(path, MAX_MATCH_CHARS)
    .filter((word) => word.length >= MIN_WORD_CHARS && !isNumeric(word) && word !== 'api')
    .slice(0, MAX_PATH_WORDS)
}

/** Whether a console message's text reports this failed request (content only; time is the log's). */
export function reportsFailure(text: string, failure: Pick<ReportedFailure, 'status' | 'path'>): boolean {
  const bounded = text.length > MAX_MATCH_CHARS ? text.slice(0, MAX_MATCH_CHARS) : text
  const said = words(bounded, MAX_MATCH_CHARS)
  if (failure.status > 0 && said.includes(String(failure.status))) return true
  const path = failure.path
  if (path.length > 1 && path.length <= MAX_MATCH_CHARS && bounded.includes(path)) return true
  if (!said.some((word) => FAILURE_WORDS.has(word))) return false
  const named = pathWords(path)
  return named.some((word) => said.includes(word))
}

/** Whether the log's time fits the failure's: same page, just after the answer. */
export function sameMoment(
  failure: Pick<ReportedFailure, 'visit' | 'at'>,
  log: { visit: number; at: number },
): boolean {
  if (failure.visit !== log.visit) return false
  const after = log.at - failure.at
  return after >= -CLOCK_SLACK_MS && after <= REPORT_WINDOW_MS
}

/** The session's recent failed requests, newest last; bounded. */
export class FailureLog {
  private readonly failures: ReportedFailure[] = []

  note(failure: ReportedFailure): void {
    if (this.failures.length >= MAX_FAILURES) this.failures.shift()
    this.failures.push(failure)
  }

  /** The latest failed request this console message reports, if any: its fingerprint. */
  reportedBy(text: string, log: { visit: number; at: number }): string | null {
    for (let i = this.failures.length - 1; i >= 0; i--) {
      const failure = this.failures[i]!
      if (sameMoment(failure, log) && reportsFailure(text, failure)) return failure.id
    }
    return null
  }
}
