import { sql } from 'drizzle-orm'
import type { DbOrTx, Tx } from '@/db/client'
import { SearchTimeoutError } from '@/lib/errors'

/**
 * How long one statement of a search may run on Postgres (docs/search.md#limits). A query
 * whose match is rare or absent walks every session of the organization (2.3 s of CPU at
 * 100,000 sessions, docs/performance.md#search), and anyone with `read:sessions` may send it;
 * the bound keeps one caller from holding backends for longer than this per call.
 */
export const SEARCH_STATEMENT_TIMEOUT_MS = 5_000

let timeoutMs = SEARCH_STATEMENT_TIMEOUT_MS

/** Tests only: a tiny bound makes any search time out, without a slow query. Undefined restores it. */
export function setSearchTimeoutForTests(ms: number | undefined): void {
  timeoutMs = ms ?? SEARCH_STATEMENT_TIMEOUT_MS
}

/** Postgres's query_canceled: statement_timeout (or a cancel request) stopped the statement. */
const QUERY_CANCELED = '57014'

function canceled(error: unknown): boolean {
  // Drizzle wraps the driver's error in its own, with the driver's as `cause`.
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if ((current as { code?: unknown }).code === QUERY_CANCELED) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/**
 * Runs a search's statements in one transaction whose statements Postgres stops after the
 * bound (local to the transaction, so the pooled connection keeps its own setting), and answers
 * a stopped one as SearchTimeoutError. PGlite accepts the setting but cannot interrupt a statement (it
 * runs on the caller's thread, without the timer signal), so there a search runs to its end.
 */
export async function withSearchTimeout<T>(db: DbOrTx, run: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(async (tx) => {
      // set_config(…, true) is SET LOCAL as one bound statement. JIT off: a rare condition makes
      // the planner cost the walk of every session above jit_above_cost, and compiling then
      // takes longer (470 ms) than the index walk it would speed up (docs/performance.md#search).
      await tx.execute(
        sql`select set_config('statement_timeout', ${String(Math.max(1, Math.trunc(timeoutMs)))}, true), set_config('jit', 'off', true)`,
      )
      return run(tx)
    })
  } catch (error) {
    if (canceled(error)) throw new SearchTimeoutError()
    throw error
  }
}
