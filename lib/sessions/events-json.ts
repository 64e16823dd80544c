import type { RrwebEvent } from '@/lib/analysis/types'
import type { BlobStore } from '@/lib/storage/types'
import { readSessionEvents, type SessionBatchRef } from './read-events'

// Big enough that a session of thousands of events is a few dozen writes, small enough that
// the first bytes leave before the whole batch is serialised.
const CHUNK_CHARS = 64 * 1024

/**
 * A session's events as one JSON array, produced while it is sent: memory holds one stored
 * batch at a time however long the session. The first batch is read before this returns, so
 * a recording missing from storage fails before any status line is sent; a later failure
 * aborts the body, which the client sees as a broken download rather than a short array.
 */
export async function sessionEventsJson(
  blobs: BlobStore,
  batches: SessionBatchRef[],
  keep: (event: RrwebEvent) => boolean = () => true,
): Promise<ReadableStream<Uint8Array>> {
  const events = kept(readSessionEvents(blobs, batches), keep)
  const first = await events.next()
  const encoder = new TextEncoder()
  let pending: IteratorResult<RrwebEvent, void> | null = first
  let started = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = started ? '' : '['
      while (text.length < CHUNK_CHARS) {
        const next = pending ?? (await events.next())
        pending = null
        if (next.done) {
          controller.enqueue(encoder.encode(`${text}]`))
          controller.close()
          return
        }
        text += `${started ? ',' : ''}${JSON.stringify(next.value)}`
        started = true
      }
      controller.enqueue(encoder.encode(text))
    },
    async cancel() {
      await events.return()
    },
  })
}

async function* kept(
  events: AsyncGenerator<RrwebEvent, void, undefined>,
  keep: (event: RrwebEvent) => boolean,
): AsyncGenerator<RrwebEvent, void, undefined> {
  for await (const event of events) if (keep(event)) yield event
}
