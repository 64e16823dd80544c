import type { RrwebEvent } from '@/lib/analysis/types'

export interface RecorderSession {
  sessionId: string
  events: readonly RrwebEvent[]
  /** Events a batch; all in one batch by default. */
  perBatch?: number
  /** Whether the last batch says `flush: "final"` (the session ended); true by default. */
  final?: boolean
  firstSequence?: number
  /** The page the session is on (entry URL and every batch's page); a loopback page by default. */
  url?: string
  user?: { anonymousId?: string; id?: string | null; properties?: Record<string, string> }
  userAgent?: string
  language?: string
  /** `metadata.release` of every batch; none by default. */
  release?: string
}

/**
 * A session's events cut into the batches the recorder sends, in the spec's batch format and
 * in order: one place that knows the shape, for the tests that ingest through the route or
 * over HTTP.
 */
export function recorderBatches(session: RecorderSession) {
  const events = session.events
  const perBatch = Math.max(1, session.perBatch ?? events.length)
  const url = session.url ?? 'http://127.0.0.1/'
  const startedAt = events[0]?.timestamp ?? Date.now()
  const batches = []
  for (let i = 0, sequence = session.firstSequence ?? 0; i < events.length; i += perBatch, sequence++) {
    const chunk = events.slice(i, i + perBatch)
    batches.push({
      session: {
        id: session.sessionId,
        windowId: 'w1',
        startedAt,
        lastActivityAt: chunk.at(-1)?.timestamp ?? startedAt,
        url,
      },
      user: {
        anonymousId: session.user?.anonymousId ?? `anon-${session.sessionId}`,
        id: session.user?.id ?? null,
        properties: session.user?.properties ?? {},
      },
      page: { url, referrer: null, viewport: { width: 1280, height: 800 } },
      replay: { events: chunk, sequence },
      metadata: {
        userAgent: session.userAgent ?? 'Mozilla/5.0 Chrome/156.0',
        language: session.language ?? 'en',
        ...(session.release ? { release: session.release } : {}),
      },
      flush: i + perBatch >= events.length && session.final !== false ? 'final' : 'normal',
    })
  }
  return batches
}
