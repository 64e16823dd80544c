/**
 * A Buffer over the bytes to store, without copying a Uint8Array. Always a Buffer: the Vercel
 * SDK refuses a falsy body, which would make an empty string unstorable, and the S3 SDK takes it
 * with a known length (no chunked upload).
 */
export function toBody(body: Uint8Array | string): Buffer {
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
}
