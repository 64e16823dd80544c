import { UnsafeUrlError } from './url-guard'

/** The spec's last-delivery error labels (Delivery rules 7). */
export type ErrorLabel = `bad_status:${number}` | 'timeout' | 'tls_error' | 'network_error' | 'url_unsafe'

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_ABORTED',
  'ETIMEDOUT',
  'ABORT_ERR',
])

const TLS_CODES = new Set([
  'EPROTO',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
])

/** Errors along the cause chain (and inside AggregateErrors from multi-address connects). */
function* chain(error: unknown, depth = 0): Generator<{ name?: unknown; code?: unknown; message?: unknown }> {
  if (!error || typeof error !== 'object' || depth > 6) return
  yield error as { name?: unknown; code?: unknown; message?: unknown }
  if (error instanceof AggregateError) for (const inner of error.errors) yield* chain(inner, depth + 1)
  yield* chain((error as { cause?: unknown }).cause, depth + 1)
}

/**
 * Maps a thrown error to its label. Names come before codes: a DOMException TimeoutError
 * carries the numeric code 23, which means nothing here.
 */
export function labelFor(error: unknown): ErrorLabel {
  const links = [...chain(error)]
  if (links.some((e) => e instanceof UnsafeUrlError || e.name === 'UnsafeUrlError')) return 'url_unsafe'
  if (links.some((e) => e.name === 'TimeoutError' || e.name === 'AbortError')) return 'timeout'
  for (const e of links) {
    const code = typeof e.code === 'string' ? e.code : ''
    if (TIMEOUT_CODES.has(code)) return 'timeout'
    if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.startsWith('CERT_'))
      return 'tls_error'
    if (TLS_CODES.has(code)) return 'tls_error'
    if (typeof e.message === 'string' && /\bSSL routines\b|wrong version number/.test(e.message))
      return 'tls_error'
  }
  return 'network_error'
}

export function badStatus(status: number): ErrorLabel {
  return `bad_status:${status}`
}
