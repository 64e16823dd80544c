import type { Db } from '@/db/client'
import type { JobsEngine } from '@/lib/jobs/types'
import { logger } from '@/lib/log'
import { dispatchOutbox } from '@/lib/outbox/dispatch'

/**
 * Hands a signal's backfill event (written with the signal, as the CLI's `signal:create`
 * does) to the jobs engine at once. Failing here loses nothing: the event stays in the outbox
 * and the finalizer's sweep sends it on its next run.
 */
export async function startBackfill(db: Db, jobs: JobsEngine, eventId: string | null): Promise<void> {
  if (!eventId) return
  try {
    await dispatchOutbox(db, jobs, { eventIds: [eventId] })
  } catch (error) {
    logger.warn({ err: error, eventId }, 'signal backfill not dispatched; the sweep will send it')
  }
}
