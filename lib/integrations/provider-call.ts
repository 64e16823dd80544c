import { setTimeout as sleep } from 'node:timers/promises'
import { MAX_RETRY_AFTER_SECONDS, PROVIDER_TIMEOUT_MS } from './limits'

/** What one failed call to a provider amounted to; never the provider's own text. */
export interface ProviderFailure {
  /** The HTTP status the provider answered; null when it never answered. */
  status: number | null
  /** The provider's Retry-After in seconds, when it sent one. */
  retryAfterSeconds: number | null
  /**
   * `bad_status:401`, `rate_limited`, `timeout`, `network_error`, `provider_refused` (the
   * provider answered and declined, e.g. a GraphQL error): what the delivery log shows.
   */
  label: string
  /** For a `timeout`: the limit that ran out, so the message states the one actually used. */
  timeoutMs?: number
}

/** One try, as the delivery log records it. */
export interface ProviderAttempt {
  attempt: number
  startedAt: Date
  durationMs: number
  httpStatus: number | null
  errorLabel: string | null
}

export type ProviderOutcome<T> = { ok: true; value: T } | { ok: false; failure: ProviderFailure }

export interface CallOptions {
  timeoutMs?: number
  /** The status a success answers with (GraphQL: 200; a REST creation: 201), for the log. */
  successStatus?: number
}

/**
 * The provider SDK's error → a failure; `null` status means the request never got an answer;
 * `refused` means the provider answered and declined (no retry, and nothing was created).
 */
export type Classify = (error: unknown) => {
  status: number | null
  retryAfterSeconds: number | null
  refused?: boolean
}

/**
 * Whether the call creates something on the provider's side. A 5xx on a creation may come after
 * the provider acted, so only a read is retried on one; a 429 was not processed and is retried
 * either way.
 */
export type CallKind = 'read' | 'create'

export function parseRetryAfter(value: string | null | undefined): number | null {
  if (!value) return null
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds)
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}

function failureOf(
  error: unknown,
  signal: AbortSignal,
  classify: Classify,
  timeoutMs: number,
): ProviderFailure {
  // The SDKs wrap an aborted fetch differently (Octokit calls it a 500): the signal knows.
  if (signal.aborted) return { status: null, retryAfterSeconds: null, label: 'timeout', timeoutMs }
  const { status, retryAfterSeconds, refused } = classify(error)
  if (refused) return { status, retryAfterSeconds, label: 'provider_refused' }
  if (status === null) return { status, retryAfterSeconds, label: 'network_error' }
  if (status === 429) return { status, retryAfterSeconds, label: 'rate_limited' }
  return { status, retryAfterSeconds, label: `bad_status:${status}` }
}

/** A 429 with a short Retry-After, or a 5xx on a read: worth one more try while the caller waits. */
function retryDelayMs(failure: ProviderFailure, kind: CallKind): number | null {
  if (failure.label === 'provider_refused') return null
  if (failure.status === 429)
    return failure.retryAfterSeconds !== null && failure.retryAfterSeconds <= MAX_RETRY_AFTER_SECONDS
      ? failure.retryAfterSeconds * 1000
      : null
  if (kind === 'read' && failure.status !== null && failure.status >= 500) return 250
  return null
}

/**
 * Calls a provider at most twice, each try bounded by a timeout, so a hung provider costs the
 * caller one timeout and never hangs the request. Only failures the provider did not act on are
 * retried: a 429, and a 5xx on a read. A timeout or a 5xx on a creation is not (the provider may
 * have acted on it, and a second ticket is worse than a clear error).
 */
export async function callProvider<T>(
  run: (signal: AbortSignal) => Promise<T>,
  classify: Classify,
  kind: CallKind,
  options: CallOptions = {},
): Promise<{ outcome: ProviderOutcome<T>; attempts: ProviderAttempt[] }> {
  const attempts: ProviderAttempt[] = []
  const timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS
  for (let attempt = 1; ; attempt++) {
    const startedAt = new Date()
    const signal = AbortSignal.timeout(timeoutMs)
    try {
      const value = await run(signal)
      attempts.push({
        attempt,
        startedAt,
        durationMs: Date.now() - startedAt.getTime(),
        httpStatus: options.successStatus ?? 200,
        errorLabel: null,
      })
      return { outcome: { ok: true, value }, attempts }
    } catch (error) {
      const failure = failureOf(error, signal, classify, timeoutMs)
      attempts.push({
        attempt,
        startedAt,
        durationMs: Date.now() - startedAt.getTime(),
        httpStatus: failure.status,
        errorLabel: failure.label,
      })
      const delay = attempt === 1 ? retryDelayMs(failure, kind) : null
      if (delay === null) return { outcome: { ok: false, failure }, attempts }
      await sleep(delay)
    }
  }
}
