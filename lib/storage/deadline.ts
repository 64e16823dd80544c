/**
 * The give-up deadline shared by the remote blob stores. Their SDKs retry a 5xx or a network
 * error on their own (Vercel Blob for half an hour, the AWS SDK with backoff), so without a
 * deadline an outage holds every ingest request that long instead of answering 500.
 */

/**
 * How long one store call may take, retries included. This leaves room for the first few
 * retries of a passing blip, and answers the request well before a client or proxy gives up.
 */
export const API_DEADLINE_MS = 15_000

export class BlobDeadlineError extends Error {
  override name = 'BlobDeadlineError'
}

/**
 * Runs `call` under the deadline: at `deadlineMs` the signal passed to it is aborted and the
 * caller is answered with a BlobDeadlineError at once. An SDK notices the abort only where it
 * checks the signal (some not during the wait between attempts), so its loop may end a little
 * later on its own; the caller does not wait for it.
 */
export async function withDeadline<T>(
  what: string,
  deadlineMs: number,
  call: (abortSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new BlobDeadlineError(`${what} did not finish within ${deadlineMs} ms`)
      controller.abort(error)
      reject(error)
    }, deadlineMs)
  })
  try {
    return await Promise.race([call(controller.signal), deadline])
  } finally {
    clearTimeout(timer)
  }
}
