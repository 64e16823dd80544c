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

export const INGEST_RATE_LIMIT = { name: 'ingest', limit: 100, windowSeconds: 60 }

export const RATE_LIMITED = 'Rate limit exceeded'

/**
 * Lookups of keys not recently seen to work, per client address. A page's visitors share its
 * key, which stays in the recent-key cache while anyone uses it, so real traffic rarely pays;
 * someone rotating made-up keys pays for each one.
 */
export const INGEST_KEY_LOOKUPS_PER_ADDRESS = { name: 'ingest-lookup-ip', limit: 60, windowSeconds: 60 }

/**
 * Presented keys that turned out not to work, from all addresses together (counted by the
 * configured limiter: per process in memory, across instances with Upstash). Once spent,
 * lookups of keys not recently seen to work wait, whoever asks.
 */
export const INGEST_KEY_MISSES = { name: 'ingest-key-misses', limit: 600, windowSeconds: 60 }
