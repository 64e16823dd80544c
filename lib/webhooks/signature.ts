import { createHmac } from 'node:crypto'

/**
 * `Service-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, keyed with the
 * UTF-8 bytes of the whole secret (`whsec_` included): byte for byte Stripe's scheme.
 */
export function signatureValue(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, body)}`
}

export function hmacHex(secret: string, timestamp: number | string, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')
}
