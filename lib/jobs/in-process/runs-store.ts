import { randomUUID } from 'node:crypto'
import { and, eq, inArray, lt, lte, or, sql } from 'drizzle-orm'
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core'
import type { Db, DbOrTx } from '@/db/client'
import { jobRuns } from '@/db/schema'

/**
 * Every statement the in-process engine runs against `job_runs`. Writes made while holding a
 * run are fenced by its `claim_id`, which each claim renews: a holder whose lease ran out and
 * whose run was claimed again can neither extend nor overwrite the new holder's state.
 */

export type RunRow = typeof jobRuns.$inferSelect
export type NewRun = typeof jobRuns.$inferInsert
export type RunUpdate = PgUpdateSetSource<typeof jobRuns>
/** A run as its holder got it from a claim. */
export type ClaimedRun = RunRow & { claimId: string }

// Times are computed by the database so that every process compares against one clock.
export const msFromNow = (ms: number) =>
  sql`now() + (${Math.round(ms)}::double precision * interval '1 millisecond')`

const INTERRUPTED = 'Interrupted: the worker stopped before the run finished'

/** `db` may be a caller's transaction, so that the runs commit or roll back with it. */
export async function insertRuns(db: DbOrTx, rows: NewRun[]): Promise<void> {
  if (rows.length === 0) return
  // The unique (function_id, idempotency_key) index is what makes a re-sent event a no-op.
  await db.insert(jobRuns).values(rows).onConflictDoNothing()
}

/** Some functions' runs and how many of them may be claimed now (one lane of the engine). */
export interface ClaimRequest {
  functionIds: string[]
  limit: number
}

/**
 * Takes, for each request, up to its `limit` due runs of its functions: queued ones whose time
 * has come, and running ones whose lease expired (their process died). All requests go out in
 * one statement, one materialized CTE per request: a CTE pins the locked selection to exactly
 * those rows (an `in (subquery)` may be re-planned and re-evaluated), and `skip locked` lets
 * concurrent claimers pass over each other's rows. Taking over an expired lease counts as an
 * attempt, as a lost worker does on Inngest.
 */
export async function claimDueInLanes(
  db: Db,
  requests: ClaimRequest[],
  leaseMs: number,
): Promise<ClaimedRun[]> {
  const wanted = requests.filter((r) => r.functionIds.length > 0 && r.limit > 0)
  if (wanted.length === 0) return []
  const claimId = randomUUID()
  const lanes = wanted.map((request, i) => {
    const due = and(
      inArray(jobRuns.functionId, request.functionIds),
      or(
        and(eq(jobRuns.status, 'queued'), lte(jobRuns.runAfter, sql`now()`)),
        and(eq(jobRuns.status, 'running'), lt(jobRuns.lockedUntil, sql`now()`)),
      ),
    )
    return {
      name: sql.raw(`due_${i}`),
      cte: sql`${sql.raw(`due_${i}`)} as materialized (
      select ${jobRuns.id} from ${jobRuns} where ${due}
      order by ${jobRuns.runAfter} limit ${request.limit}
      for update skip locked
    )`,
    }
  })
  const ctes = sql.join(
    lanes.map((lane) => lane.cte),
    sql`, `,
  )
  const union = sql.join(
    lanes.map((lane) => sql`select id from ${lane.name}`),
    sql` union all `,
  )
  const wasRunning = sql`${jobRuns.status} = 'running'`
  const result = await db.execute(sql`
    with ${ctes}
    update ${jobRuns} set
      status = 'running',
      attempt = case when ${wasRunning} then ${jobRuns.attempt} + 1 else ${jobRuns.attempt} end,
      last_error = case when ${wasRunning} then ${INTERRUPTED} else ${jobRuns.lastError} end,
      locked_until = ${msFromNow(leaseMs)},
      claim_id = ${claimId},
      updated_at = now()
    from (${union}) as due where ${jobRuns.id} = due.id
    returning ${jobRuns.id}`)
  const ids = returnedIds(result)
  if (ids.length === 0) return []
  // Read back through the typed builder, so both drivers hand over the same row shape.
  const rows = await db
    .select()
    .from(jobRuns)
    .where(and(inArray(jobRuns.id, ids), eq(jobRuns.claimId, claimId)))
  return rows.filter((row): row is ClaimedRun => row.claimId === claimId)
}

/** Takes up to `limit` due runs of the functions (a single lane; see claimDueInLanes). */
export function claimDue(
  db: Db,
  functionIds: string[],
  limit: number,
  leaseMs: number,
): Promise<ClaimedRun[]> {
  return claimDueInLanes(db, [{ functionIds, limit }], leaseMs)
}

/** postgres.js returns the rows as an array, PGlite as `{ rows }`. */
function returnedIds(result: unknown): string[] {
  const rows = Array.isArray(result)
    ? result
    : result && typeof result === 'object' && 'rows' in result && Array.isArray(result.rows)
      ? result.rows
      : undefined
  if (!rows) throw new Error('claiming job runs: unexpected result shape from the database driver')
  return rows.map((row: unknown) => {
    const id = row && typeof row === 'object' && 'id' in row ? row.id : undefined
    if (typeof id !== 'string') throw new Error('claiming job runs: a returned row has no id')
    return id
  })
}

/** Writes only while `run` is still held under this claim; false when it no longer is. */
export async function updateOwned(db: Db, run: ClaimedRun, values: RunUpdate): Promise<boolean> {
  const updated = await db
    .update(jobRuns)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(jobRuns.id, run.id), eq(jobRuns.status, 'running'), eq(jobRuns.claimId, run.claimId)))
    .returning({ id: jobRuns.id })
  return updated.length > 0
}

/** Records a step's JSON result under `key`, together with whatever else the holder writes. */
export function saveStep(
  db: Db,
  run: ClaimedRun,
  key: string,
  json: string,
  values: RunUpdate,
): Promise<boolean> {
  return updateOwned(db, run, {
    ...values,
    steps: sql`${jobRuns.steps} || jsonb_build_object(${key}::text, ${json}::jsonb)`,
  })
}

/**
 * Returns a held run to the queue without spending an attempt: for the next process (or this
 * one, restarted) to pick up where its completed steps left off.
 */
export function giveBack(db: Db, run: ClaimedRun): Promise<boolean> {
  return updateOwned(db, run, { status: 'queued', lockedUntil: null, claimId: null })
}

/** Deletes completed runs older than `retentionMs`; failed ones are kept for inspection. */
export async function prune(db: Db, retentionMs: number): Promise<void> {
  await db
    .delete(jobRuns)
    .where(and(eq(jobRuns.status, 'completed'), lt(jobRuns.completedAt, msFromNow(-retentionMs))))
}

/** Runs per completion statement: they travel as one JSON parameter, so this only bounds its size. */
export const MAX_COMPLETIONS_PER_STATEMENT = 500

/**
 * Marks many held runs completed in one statement, each fenced by its own claim as
 * updateOwned fences one; returns the ids it completed (a run missing from it was no longer
 * held). One JSON parameter: the statement's text is the same for any number of runs.
 */
export async function completeRuns(db: Db, runs: readonly ClaimedRun[]): Promise<Set<string>> {
  if (runs.length === 0) return new Set()
  const input = JSON.stringify(runs.map((run) => ({ id: run.id, claim_id: run.claimId })))
  const result = await db.execute(sql`
    update ${jobRuns} set
      status = 'completed',
      completed_at = now(),
      locked_until = null,
      claim_id = null,
      updated_at = now()
    from jsonb_to_recordset(${input}::jsonb) as held (id uuid, claim_id uuid)
    where ${jobRuns.id} = held.id and ${jobRuns.claimId} = held.claim_id and ${jobRuns.status} = 'running'
    returning ${jobRuns.id}`)
  return new Set(returnedIds(result))
}

/** A completed step's result to record on a held run. */
export interface StepSave {
  run: ClaimedRun
  key: string
  /** The step's stored JSON (`{"value": ...}`). */
  json: string
}

/**
 * Records many runs' step results in one statement, each renewing its run's lease and fenced
 * by its claim as saveStep is; returns the ids it wrote. The results travel inside one JSON
 * parameter, spliced in as the JSON text they already are (no second serialization).
 */
export async function saveSteps(db: Db, saves: readonly StepSave[], leaseMs: number): Promise<Set<string>> {
  if (saves.length === 0) return new Set()
  const input = `[${saves
    .map(
      (s) =>
        `{"id":${JSON.stringify(s.run.id)},"claim_id":${JSON.stringify(s.run.claimId)},"key":${JSON.stringify(s.key)},"result":${s.json}}`,
    )
    .join(',')}]`
  const result = await db.execute(sql`
    update ${jobRuns} set
      steps = ${jobRuns.steps} || jsonb_build_object(saved.key, saved.result),
      locked_until = ${msFromNow(leaseMs)},
      updated_at = now()
    from jsonb_to_recordset(${input}::jsonb) as saved (id uuid, claim_id uuid, key text, result jsonb)
    where ${jobRuns.id} = saved.id and ${jobRuns.claimId} = saved.claim_id and ${jobRuns.status} = 'running'
    returning ${jobRuns.id}`)
  return new Set(returnedIds(result))
}

/** Where some runs stand now: each one's function and status (for a caller that ran them). */
export async function runStatuses(
  db: Db,
  ids: readonly string[],
): Promise<{ id: string; functionId: string; status: RunRow['status'] }[]> {
  if (ids.length === 0) return []
  return db
    .select({ id: jobRuns.id, functionId: jobRuns.functionId, status: jobRuns.status })
    .from(jobRuns)
    .where(inArray(jobRuns.id, [...ids]))
}

/**
 * Milliseconds, by the database's clock, until the first of these runs that waits in the queue
 * (a retry's backoff, a sleep) is due; null when none waits.
 */
export async function msUntilFirstQueued(db: Db, ids: readonly string[]): Promise<number | null> {
  if (ids.length === 0) return null
  const [row] = await db
    .select({
      // min() of no rows is null (greatest() would turn that into 0).
      ms: sql<string | number | null>`extract(epoch from (min(${jobRuns.runAfter}) - now())) * 1000`,
    })
    .from(jobRuns)
    .where(and(inArray(jobRuns.id, [...ids]), eq(jobRuns.status, 'queued')))
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, Math.ceil(Number(row.ms)))
}
