export const INVALID_BATCH = 'Invalid replay batch'

const MIB = 1024 * 1024

/**
 * A batch is at most 10 MiB of JSON (a recorder flushes every few seconds; a full snapshot of
 * a heavy page is a few MiB). On the wire, compressed, at most 5 MiB: rrweb JSON compresses
 * 5-20x, so a legitimate gzip body is far smaller, and a zip bomb stops at 10 MiB decoded.
 */
export const INGEST_LIMITS = {
  maxWireBytes: 5 * MIB,
  maxDecodedBytes: 10 * MIB,
  tooLargeMessage: 'Replay batch too large: at most 10 MiB of JSON (5 MiB compressed)',
}

export const RATE_LIMITED = 'Rate limit exceeded'
