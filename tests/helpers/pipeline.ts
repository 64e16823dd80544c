import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { RrwebEvent } from '@/lib/analysis/types'
import { sendBatch } from './ingest'

export interface Recording {
  scenario: string
  events: RrwebEvent[]
}

export function loadRecording(name: string): Recording {
  return JSON.parse(
    readFileSync(path.join(process.cwd(), 'tests/fixtures/recordings', `${name}.json`), 'utf8'),
  )
}

/**
 * A real recording moved in time so it ends a minute ago: the events are exactly as rrweb
 * emitted them, only every timestamp is shifted by the same amount.
 */
export function endingNow(events: RrwebEvent[], endsAgoMs = 60_000): RrwebEvent[] {
  const last = events.at(-1)?.timestamp ?? 0
  const offset = Date.now() - endsAgoMs - last
  return events.map((event) => ({ ...event, timestamp: event.timestamp + offset }))
}

/** Sends a session through the real ingest route in batches, as the recorder would. */
export async function ingestSession(
  key: string,
  sessionId: string,
  events: RrwebEvent[],
  options: { perBatch?: number; final?: boolean; firstSequence?: number; url?: string } = {},
): Promise<number> {
  const perBatch = options.perBatch ?? 40
  const start = events[0]?.timestamp ?? Date.now()
  let sequence = options.firstSequence ?? 0
  for (let i = 0; i < events.length; i += perBatch) {
    const chunk = events.slice(i, i + perBatch)
    const last = i + perBatch >= events.length
    const body = {
      session: {
        id: sessionId,
        windowId: 'w1',
        startedAt: start,
        lastActivityAt: chunk.at(-1)!.timestamp,
        url: options.url ?? 'http://127.0.0.1/',
      },
      user: {
        anonymousId: `anon-${sessionId}`,
        id: null,
        properties: { email: 'ada@example.com', name: 'Ada' },
      },
      page: {
        url: options.url ?? 'http://127.0.0.1/',
        referrer: null,
        viewport: { width: 1280, height: 800 },
      },
      replay: { events: chunk, sequence },
      metadata: { userAgent: 'Mozilla/5.0 Chrome/156.0', language: 'en' },
      flush: last && options.final ? 'final' : 'normal',
    }
    const response = await sendBatch(body, { key })
    if (response.status !== 200)
      throw new Error(`ingest answered ${response.status}: ${await response.text()}`)
    sequence++
  }
  return sequence
}
