/**
 * Thrown by a handler when trying again cannot help (the record it works on is gone, the
 * input is invalid): the run fails at once instead of spending its retries. The Inngest
 * engine rethrows it as inngest's own NonRetriableError so both engines behave alike.
 */
export class NonRetriableError extends Error {
  override name = 'NonRetriableError'

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/**
 * True for ours and for inngest's class: a handler that imported the wrong one by mistake
 * still gets the behaviour it asked for on either engine.
 */
export function isNonRetriable(error: unknown): boolean {
  return error instanceof NonRetriableError || (error instanceof Error && error.name === 'NonRetriableError')
}

const MAX_ERROR_LENGTH = 4000

/** The error as stored on a failed run: bounded, since a handler may throw anything. */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return text.slice(0, MAX_ERROR_LENGTH)
}
