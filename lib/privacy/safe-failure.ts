import { DrizzleQueryError } from 'drizzle-orm/errors'

/**
 * An error a privacy job can keep, show and log: a failed database query's error carries the
 * statement's parameters — the very person being erased or exported — in its message, so it
 * is replaced by what failed and the database's error code. Other errors (storage, keys) name
 * no end user and keep their message.
 */
export function privacySafeError(error: unknown): Error {
  if (
    error instanceof DrizzleQueryError ||
    (error instanceof Error && error.message.startsWith('Failed query'))
  ) {
    const cause = (error as { cause?: unknown }).cause
    const code =
      typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
        ? cause.code
        : undefined
    return new Error(`A database query failed${code ? ` (code ${code})` : ''}`)
  }
  if (error instanceof Error) return new Error(error.message.slice(0, 500))
  return new Error('The job failed')
}
