// Whether an error only says that the client went away mid-answer (a tab closed, or a client
// navigation that dropped the page's RSC stream). Next logs such a write failure as
// "failed to pipe response" with the socket's error as its cause; it is not a fault of ours, so
// the server logs it at debug level and keeps error lines for real errors. Plain JavaScript:
// server.mjs runs it without TypeScript.

/** Node's errors for a socket or stream the other side closed. */
const ABORT_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
])
/** The DOM's name for an aborted operation, and Next's for a response the client closed. */
const ABORT_NAMES = new Set(['AbortError', 'ResponseAborted'])
// A cause chain longer than this is not a wrapped socket error.
const MAX_DEPTH = 5

export function isClientAbort(error) {
  let current = error
  for (let depth = 0; depth < MAX_DEPTH && current && typeof current === 'object'; depth++) {
    const { name, code, message } = current
    if (ABORT_NAMES.has(name) || (typeof code === 'string' && ABORT_CODES.has(code))) return true
    // An IncomingMessage's own error when the client hung up mid-request.
    if (message === 'aborted' && name === 'Error') return true
    current = current.cause
  }
  return false
}

const DEBUG_LEVELS = new Set(['debug', 'trace'])

/**
 * Routes console.error lines that carry only a client abort (Next's own request logging, the
 * front server's "request failed") to debug output: printed as a warning-free line when
 * LOG_LEVEL is debug or trace, dropped otherwise. Every other console.error is untouched.
 */
export function quietClientAborts(console_ = console, level = process.env.LOG_LEVEL?.trim()) {
  const error = console_.error.bind(console_)
  const debug = (console_.debug ?? console_.log).bind(console_)
  console_.error = (...args) => {
    const errors = args.filter((arg) => arg instanceof Error)
    if (errors.length === 0 || !errors.every(isClientAbort)) return error(...args)
    if (DEBUG_LEVELS.has(level ?? ''))
      debug('client closed the connection before the answer was sent:', ...args)
  }
}
