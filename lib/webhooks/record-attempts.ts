import { sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import type { DeliveryStatus } from '@/db/schema'
import { logger } from '@/lib/log'
import type { DeliveryOutcome } from './deliver'

/** One finished attempt, as it is written: its log row, its delivery's new state, its endpoint's last delivery. */
export interface AttemptRecord {
  deliveryId: string
  endpointId: string
  /** The delivery's attempt count when it was claimed: the write is guarded by it. */
  expectedAttempts: number
  outcome: DeliveryOutcome
  /** `pending` again when it will be retried. */
  status: Extract<DeliveryStatus, 'pending' | 'succeeded' | 'failed'>
  /** Seconds until the retry, when status is `pending`. */
  retryDelaySeconds: number | null
}

/** Records per statement: they travel as one JSON parameter, so this only bounds its size. */
const MAX_RECORDS_PER_STATEMENT = 500

/** One record as a row of the statement's JSON input (jsonb_to_recordset reads these names). */
function inputRow(r: AttemptRecord) {
  const o = r.outcome
  return {
    delivery_id: r.deliveryId,
    endpoint_id: r.endpointId,
    expected: r.expectedAttempts,
    attempt: r.expectedAttempts + 1,
    started_at: o.startedAt.toISOString(),
    duration_ms: o.durationMs,
    http_status: o.status,
    error_label: o.label,
    status: r.status,
    retry_seconds: r.retryDelaySeconds,
  }
}

/**
 * Records many attempts in one statement, so bookkeeping costs one round trip per batch,
 * not five per delivery. One statement is atomic: either every row of the batch is written or
 * none. The same guards as one delivery at a time:
 * - the attempt row is written even when the delivery moved on meanwhile (a revocation
 *   cancelled it): the request was sent, so the log shows it; (delivery, attempt) is unique,
 *   so writing a record twice adds nothing;
 * - the delivery only moves from the state it was claimed in (pending, same attempt count),
 *   so a cancellation stays and a slower worker can never undo a newer outcome;
 * - an endpoint's "last delivery" takes the batch's latest attempt for it and never moves
 *   back in time (two batches can finish out of order).
 */
export async function recordAttempts(db: Db, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return
  // One JSON parameter for the whole batch: the statement's text is the same for any batch
  // size, and building it costs nothing per row.
  await db.execute(sql`
    with input as (
      select * from jsonb_to_recordset(${JSON.stringify(records.map(inputRow))}::jsonb) as r (
        delivery_id uuid, endpoint_id uuid, expected int, attempt int, started_at timestamptz,
        duration_ms int, http_status int, error_label text, status text, retry_seconds int)
    ),
    logged as (
      insert into webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, http_status, error_label)
      select i.delivery_id, i.attempt, i.started_at, i.duration_ms, i.http_status, i.error_label
      from input i
      -- A delivery deleted with its endpoint meanwhile has nothing left to log against.
      join webhook_deliveries d on d.id = i.delivery_id
      on conflict do nothing
    ),
    moved as (
      update webhook_deliveries d
      set attempts = i.attempt,
          status = i.status,
          last_attempt_at = i.started_at,
          last_status = i.http_status,
          last_error = i.error_label,
          next_attempt_at = case when i.status = 'pending'
                                 then now() + make_interval(secs => i.retry_seconds)
                                 else d.next_attempt_at end
      from input i
      where d.id = i.delivery_id and d.status = 'pending' and d.attempts = i.expected
    ),
    latest as (
      select distinct on (endpoint_id) endpoint_id, started_at, http_status, error_label
      from input
      order by endpoint_id, started_at desc
    )
    update webhook_endpoints e
    set last_delivery_at = l.started_at, last_status = l.http_status, last_error = l.error_label
    from latest l
    where e.id = l.endpoint_id and (e.last_delivery_at is null or e.last_delivery_at <= l.started_at)
  `)
}

interface Pending {
  record: AttemptRecord
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * Group commit for attempt bookkeeping: attempts that finish while a write is on its way are
 * written together by the next one, so under load a batch of outcomes costs one round trip
 * and at low load an outcome waits for no timer. `record()` resolves once the outcome is
 * stored: a caller reports an attempt as done only then.
 *
 * If a batch statement fails (one row the database refuses fails the whole statement; so does
 * a deadlock with another process's batch over a shared endpoint row), each of its records is
 * written alone, so the others still reach the database; a record whose own write fails is
 * rejected and its delivery stays claimed until the lease runs out, then is sent again with
 * the same id and body (the at-least-once the design documents for a crash between sending
 * and recording). A delivery whose success was written is never claimed again.
 */
export class AttemptRecorder {
  private buffer: Pending[] = []
  private draining: Promise<void> | null = null

  constructor(
    private readonly db: Db,
    private readonly write: (db: Db, records: readonly AttemptRecord[]) => Promise<void> = recordAttempts,
  ) {}

  record(record: AttemptRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.buffer.push({ record, resolve, reject })
      this.draining ??= this.drain()
    })
  }

  private async drain(): Promise<void> {
    // Outcomes that arrive in the same turn of the event loop join this batch.
    await new Promise<void>((resolve) => setImmediate(resolve))
    while (this.buffer.length > 0) await this.writeBatch(this.buffer.splice(0, MAX_RECORDS_PER_STATEMENT))
    this.draining = null
  }

  private async writeBatch(batch: Pending[]): Promise<void> {
    try {
      await this.write(
        this.db,
        batch.map((p) => p.record),
      )
      for (const p of batch) p.resolve()
      return
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error)
        return
      }
      logger.warn(
        { err: error, records: batch.length },
        'webhook attempt batch not written; writing each alone',
      )
    }
    for (const p of batch) {
      try {
        await this.write(this.db, [p.record])
        p.resolve()
      } catch (error) {
        p.reject(error)
      }
    }
  }
}
