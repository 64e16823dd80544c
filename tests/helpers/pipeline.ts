import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { RrwebEvent } from '@/lib/analysis/types'
import { recorderBatches } from './batches'
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
  options: {
    perBatch?: number
    final?: boolean
    firstSequence?: number
    url?: string
    release?: string
  } = {},
): Promise<number> {
  const batches = recorderBatches({
    sessionId,
    events,
    perBatch: options.perBatch ?? 40,
    final: options.final ?? false,
    firstSequence: options.firstSequence,
    url: options.url,
    release: options.release,
    user: { properties: { email: 'ada@example.com', name: 'Ada' } },
  })
  for (const batch of batches) {
    const response = await sendBatch(batch, { key })
    if (response.status !== 200)
      throw new Error(`ingest answered ${response.status}: ${await response.text()}`)
  }
  return (options.firstSequence ?? 0) + batches.length
}
