import { timingSafeEqual } from 'node:crypto'
import { hmacHex } from './signature'

/**
 * Receiver-side check of `Service-Signature` (spec "Webhook request authentication"):
 * over the raw body bytes, recomputed, compared in constant time, with `t` within
 * 5 minutes of the receiver's clock in both directions. Any of several `v1` values may
 * match, so a secret rotation can sign with both secrets for a while.
 */
const DEFAULT_TOLERANCE_SECONDS = 300

class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError'
}

export interface VerifyOptions {
  toleranceSeconds?: number
  /** Unix seconds; the receiver's clock by default. */
  now?: number
}

export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): { timestamp: number } {
  if (!header) throw new WebhookVerificationError('missing Service-Signature header')
  let timestamp: number | undefined
  const signatures: string[] = []
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2)
    if (key === 't' && value && /^\d+$/.test(value)) timestamp = Number(value)
    else if (key === 'v1' && value) signatures.push(value)
  }
  if (timestamp === undefined) throw new WebhookVerificationError('no timestamp in Service-Signature')
  if (signatures.length === 0) throw new WebhookVerificationError('no v1 signature in Service-Signature')
  const now = options.now ?? Math.floor(Date.now() / 1000)
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  if (Math.abs(now - timestamp) > tolerance)
    throw new WebhookVerificationError('timestamp outside the tolerance window')
  const expected = Buffer.from(hmacHex(secret, timestamp, rawBody), 'hex')
  const matches = signatures.some((candidate) => {
    const given = Buffer.from(candidate, 'hex')
    // Lengths are public (always 32 bytes); only equal-length buffers are compared.
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!matches) throw new WebhookVerificationError('signature does not match')
  return { timestamp }
}
