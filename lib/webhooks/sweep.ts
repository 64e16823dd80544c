import type { Db } from '@/db/client'
import { logger } from '@/lib/log'
import {
  attemptRecord,
  type ClaimedDelivery,
  cancelDeliveries,
  claimDueDeliveries,
  type DeliveryWithEndpoint,
  endpointActive,
  loadClaimed,
  logAttempt,
  REVOCATION_RECHECK_MS,
  START_WITHIN_MS,
  secretsOf,
  sendDelivery,
} from './attempt'
import type { Deliverer } from './deliver'
import { KeyedQueue } from './keyed-queue'
import { AttemptRecorder } from './record-attempts'

/**
 * One recorder per database handle, shared by every deliverDue running in the process (the
 * sweep and the fan-out jobs' first attempts), so outcomes of concurrent jobs share a write.
 */
const recorders = new WeakMap<Db, AttemptRecorder>()
function recorderFor(db: Db): AttemptRecorder {
  let recorder = recorders.get(db)
  if (!recorder) {
    recorder = new AttemptRecorder(db)
    recorders.set(db, recorder)
  }
  return recorder
}

/**
 * How often the due-deliveries sweep runs: a quarter of the shortest retry delay, between
 * 5 and 30 s (15 s with the defaults), so a retry goes out close to its time.
 */
export function sweepIntervalSeconds(delays: readonly number[]): number {
  return Math.min(30, Math.max(5, Math.round(Math.min(...delays) / 4)))
}

export interface SweepOptions {
  delays: readonly number[]
  /** Deliveries claimed per round. */
  batch?: number
  /** Attempts in flight at once, over all endpoints, in this call (each call has its own queue). */
  concurrency?: number
  /** Attempts in flight at once to one endpoint in this call; its deliveries start oldest first. */
  perEndpoint?: number
  /** Stop after this many claims (a job step should end in bounded time). */
  maxRounds?: number
  /** Only these deliveries (the fan-out's immediate first attempt). */
  ids?: string[]
}

const DEFAULT_CONCURRENCY = 32
const DEFAULT_PER_ENDPOINT = 8

/**
 * Attempts every due delivery; returns how many attempts were made. Claims come in rounds,
 * and the next claim is made while the last round is still sending (once fewer than half a
 * round waits to start), so sends never wait for a claim's round trip. Sends run in parallel
 * under an overall bound and a per-endpoint bound; their outcomes are written in batches
 * (AttemptRecorder), shared with the other deliverDue calls of the process. An attempt counts as made once its outcome is stored.
 */
export async function deliverDue(db: Db, deliver: Deliverer, options: SweepOptions): Promise<number> {
  const batch = options.batch ?? 50
  const maxRounds = options.maxRounds ?? 20
  const queue = new KeyedQueue(
    options.concurrency ?? DEFAULT_CONCURRENCY,
    options.perEndpoint ?? DEFAULT_PER_ENDPOINT,
  )
  const recorder = recorderFor(db)
  let attempted = 0
  // Endpoint checks made after the load, at most one per endpoint per REVOCATION_RECHECK_MS.
  const rechecked = new Map<string, { at: number; active: Promise<boolean> }>()
  const stillActive = (endpointId: string): Promise<boolean> => {
    const known = rechecked.get(endpointId)
    if (known && performance.now() - known.at <= REVOCATION_RECHECK_MS) return known.active
    const active = endpointActive(db, endpointId)
    rechecked.set(endpointId, { at: performance.now(), active })
    return active
  }
  const attempt = async (row: DeliveryWithEndpoint, secret: string | undefined, claimedAt: number) => {
    // Left for a later claim once the lease has run out: see START_WITHIN_MS.
    if (secret === undefined || performance.now() - claimedAt > START_WITHIN_MS) return
    if (performance.now() - claimedAt > REVOCATION_RECHECK_MS && !(await stillActive(row.endpoint.id))) {
      await cancelDeliveries(db, [row.delivery.id])
      return
    }
    const outcome = await sendDelivery(deliver, row, secret)
    const record = attemptRecord(row, outcome, options.delays)
    try {
      await recorder.record(record)
    } catch (error) {
      // The claim's lease runs out and a later sweep sends it again, same id and body.
      logger.error({ err: error, deliveryId: row.delivery.id }, 'webhook attempt bookkeeping failed')
      return
    }
    attempted++
    logAttempt(row, record)
  }
  for (let round = 0; round < maxRounds; round++) {
    const claimed: ClaimedDelivery[] = await claimDueDeliveries(db, { limit: batch, ids: options.ids })
    if (claimed.length === 0) break
    const claimedAt = performance.now()
    const { due, revoked } = await loadClaimed(db, claimed)
    await cancelDeliveries(db, revoked)
    const secrets = secretsOf(due)
    for (const row of due)
      queue.add(row.endpoint.id, () =>
        attempt(row, secrets.get(row.endpoint.id), claimedAt).catch((error: unknown) => {
          // A database error around the send (the revocation check, a cancellation): the
          // claim's lease runs out and a later sweep takes the delivery again.
          logger.error({ err: error, deliveryId: row.delivery.id }, 'webhook attempt failed')
        }),
      )
    if (options.ids) break
    await queue.whenBacklogBelow(Math.ceil(batch / 2))
  }
  // Each attempt awaited its own record, so once the queue is idle every outcome is stored.
  await queue.idle()
  return attempted
}
