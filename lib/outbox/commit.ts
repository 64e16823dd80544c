import type { Db, DbOrTx, Tx } from '@/db/client'
import { appJobsEngine } from '@/lib/jobs/app-engine'
import type { JobsEngine } from '@/lib/jobs/types'
import { logger } from '@/lib/log'
import { dispatchOutbox } from './dispatch'
import { pendingEvents } from './pending'

function isTransaction(db: DbOrTx): db is Tx {
  return 'rollback' in db
}

/**
 * Runs `work` in a transaction and, once it has committed, hands the outbox events it wrote
 * (enqueueEvent) to the jobs engine, so their jobs start now rather than at the next sweep.
 * Every writer of outbox events goes through here. Inside another commitWithEvents (or a
 * caller's transaction) it is only a savepoint: the events wait for the outermost commit.
 * Handing over may fail or find no engine (a script that never built one): the events stay
 * in the outbox and the outbox sweep sends them.
 */
export async function commitWithEvents<T>(
  db: DbOrTx,
  work: (tx: Tx) => Promise<T>,
  jobs: JobsEngine | undefined = appJobsEngine(),
): Promise<T> {
  if (pendingEvents.getStore() || isTransaction(db)) return db.transaction(work)
  const written: string[] = []
  const result = await pendingEvents.run(written, () => db.transaction(work))
  await handOver(db, jobs, written)
  return result
}

/** Sends the given events now; a failure leaves them to the sweep (so it is logged, not thrown). */
export async function handOver(db: Db, jobs: JobsEngine | undefined, eventIds: string[]): Promise<void> {
  if (!jobs || eventIds.length === 0) return
  try {
    await dispatchOutbox(db, jobs, { eventIds })
  } catch (error) {
    logger.warn(
      { err: error, events: eventIds.length },
      'outbox events not handed over; the sweep will send them',
    )
  }
}
