/** Retry timing of the transport; pure. */

const BACKOFF = { baseMs: 1000, maxMs: 60_000 }

/** `Retry-After` as integer seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (!header) return null
  const value = header.trim()
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

/**
 * Delay before retry number `attempt` (1 = first retry). With `Retry-After` the server's wait is
 * honoured (plus up to 10 % so that many tabs do not return in the same second); otherwise
 * exponential from 1 s, capped at 60 s, with "equal jitter": half fixed, half random.
 */
export function retryDelay(attempt: number, retryAfterMs: number | null, random: () => number): number {
  if (retryAfterMs !== null) return Math.round(retryAfterMs + retryAfterMs * 0.1 * random())
  const cap = Math.min(BACKOFF.maxMs, BACKOFF.baseMs * 2 ** Math.max(0, attempt - 1))
  return Math.round(cap / 2 + (cap / 2) * random())
}

export type Outcome = 'delivered' | 'retry' | 'drop' | 'unauthorized'

/** What to do after an HTTP answer: 2xx done; 408, 429 and 5xx again; 401 stops; other 4xx drop. */
export function classifyStatus(status: number): Outcome {
  if (status >= 200 && status < 300) return 'delivered'
  if (status === 401) return 'unauthorized'
  if (status === 408 || status === 429 || status >= 500) return 'retry'
  return 'drop'
}
