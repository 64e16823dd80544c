import type { Db } from '@/db/client'
import { logger } from '@/lib/log'
import { type AttemptResult, attemptDelivery, type ClaimedDelivery, claimDueDeliveries } from './attempt'
import type { Deliverer } from './deliver'

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
  /** Attempts in flight at once. */
  concurrency?: number
  /** Stop after this many rounds (a job step should end in bounded time). */
  maxRounds?: number
  /** Only these deliveries (the fan-out's immediate first attempt). */
  ids?: string[]
}

async function runPool(
  items: ClaimedDelivery[],
  concurrency: number,
  work: (item: ClaimedDelivery) => Promise<AttemptResult>,
): Promise<Record<AttemptResult, number>> {
  const tally: Record<AttemptResult, number> = {
    succeeded: 0,
    retrying: 0,
    failed: 0,
    cancelled: 0,
    skipped: 0,
  }
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!
      try {
        tally[await work(item)]++
      } catch (error) {
        // The claim's lease runs out and another sweep tries again: nothing is lost.
        logger.error({ err: error, deliveryId: item.id }, 'webhook attempt bookkeeping failed')
        tally.skipped++
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return tally
}

/** Attempts every due delivery (claiming in rounds); returns how many attempts were made. */
export async function deliverDue(db: Db, deliver: Deliverer, options: SweepOptions): Promise<number> {
  const batch = options.batch ?? 50
  const maxRounds = options.maxRounds ?? 20
  let attempted = 0
  for (let round = 0; round < maxRounds; round++) {
    const claimed = await claimDueDeliveries(db, { limit: batch, ids: options.ids })
    if (claimed.length === 0) break
    const tally = await runPool(claimed, options.concurrency ?? 10, (c) =>
      attemptDelivery(db, deliver, c, options.delays),
    )
    attempted += claimed.length - tally.skipped - tally.cancelled
    if (options.ids) break
  }
  return attempted
}
