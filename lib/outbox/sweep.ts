import type { Db } from '@/db/client'
import type { JobsEngine } from '@/lib/jobs/types'
import { dispatchOutbox } from './dispatch'

const SWEEP_LIMIT = 5000

/**
 * Sends every event still undispatched: those whose hand-over after commit failed or never
 * happened (a crash between the commit and the send). A second send of an event already
 * sent is harmless: the event id is the engine's deduplication id.
 */
export function sweepOutbox(db: Db, jobs: JobsEngine): Promise<number> {
  return dispatchOutbox(db, jobs, { olderThanSeconds: -1, limit: SWEEP_LIMIT })
}
