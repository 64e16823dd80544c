/**
 * A stream read whole, but never past `max` bytes: request bodies and stored blobs alike are
 * read with a bound, so a client or a corrupted store cannot make this process hold more.
 */
export async function readCapped(stream: ReadableStream<Uint8Array>, max: number): Promise<Buffer | null> {
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > max) {
      await reader.cancel().catch(() => {})
      return null
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}
