import { and, eq, lt, min, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { jobRuns, outbox } from '@/db/schema'
import { logger } from '@/lib/log'
import type { RateLimiter } from '@/lib/ratelimit'
import { RATE_LIMITS } from '@/lib/ratelimit/policies'
import type { BlobStore } from '@/lib/storage'

export interface ComponentHealth {
  ok: boolean
  /** Which adapter answered (postgres/pglite, vercel/s3/local, upstash/redis/memory, inngest/in-process). */
  kind: string
  latencyMs: number
  /** A short, secret-free reason when not ok; details go to the log. */
  error?: string
  /** Backlog figures of the jobs check. */
  queued?: number
  oldestQueuedSeconds?: number | null
  undispatchedOutbox?: number
}

export interface HealthReport {
  status: 'ok' | 'degraded'
  checks: Record<'database' | 'blob' | 'rateLimiter' | 'jobs', ComponentHealth>
}

export interface HealthDeps {
  db: () => Promise<Db>
  databaseKind: string
  blob: () => BlobStore
  rateLimiter: () => RateLimiter
  jobsKind: 'inngest' | 'in-process'
  now?: () => number
  timeoutMs?: number
  /** A queued run older than this means nothing is executing background functions. */
  stalledAfterSeconds?: number
}

/** A failure whose message is safe to show to whoever calls the health endpoint. */
class HealthProblem extends Error {}

/** An adapter that cannot even be built (bad configuration) is reported by its probe, not thrown. */
function kindOf(read: () => string): string {
  try {
    return read()
  } catch {
    return 'unknown'
  }
}

async function timed(
  name: string,
  kind: string,
  timeoutMs: number,
  probe: () => Promise<Partial<ComponentHealth> | undefined>,
): Promise<ComponentHealth> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  try {
    const extra = await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HealthProblem(`no answer within ${timeoutMs} ms`)), timeoutMs)
      }),
    ])
    const latencyMs = Math.round(performance.now() - started)
    return { ok: true, kind, latencyMs, ...extra }
  } catch (error) {
    const latencyMs = Math.round(performance.now() - started)
    logger.warn({ err: error, component: name }, 'health check failed')
    const reason = error instanceof HealthProblem ? error.message : 'unreachable'
    return { ok: false, kind, latencyMs, error: reason }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Probes each dependency the way requests use it, with a deadline each, in parallel: a host's
 * health check gets an answer within the deadline even when a dependency hangs.
 */
export async function checkHealth(deps: HealthDeps): Promise<HealthReport> {
  const timeoutMs = deps.timeoutMs ?? 2_000
  const now = deps.now ?? Date.now
  const stalledAfter = deps.stalledAfterSeconds ?? 600
  const [database, blob, rateLimiter, jobs] = await Promise.all([
    timed('database', deps.databaseKind, timeoutMs, async () => {
      const db = await deps.db()
      await db.execute(sql`select 1`)
      return undefined
    }),
    timed(
      'blob',
      kindOf(() => deps.blob().kind),
      timeoutMs,
      async () => {
        // A read only: health checks run often and must not write objects.
        await deps.blob().list('health/')
        return undefined
      },
    ),
    timed(
      'rateLimiter',
      kindOf(() => deps.rateLimiter().kind),
      timeoutMs,
      async () => {
        await deps.rateLimiter().limit(RATE_LIMITS.healthProbe, 'probe')
        return undefined
      },
    ),
    timed('jobs', deps.jobsKind, timeoutMs, async () => {
      const db = await deps.db()
      const [runs] = await db
        .select({ queued: sql<number>`count(*)::int`, oldest: min(jobRuns.runAfter) })
        .from(jobRuns)
        .where(and(eq(jobRuns.status, 'queued'), lt(jobRuns.runAfter, new Date(now()))))
      const [pending] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(outbox)
        .where(sql`${outbox.dispatchedAt} is null`)
      const oldest = runs?.oldest ? Math.round((now() - runs.oldest.getTime()) / 1000) : null
      const figures = {
        queued: runs?.queued ?? 0,
        oldestQueuedSeconds: oldest,
        undispatchedOutbox: pending?.n ?? 0,
      }
      // Only the in-process engine keeps its queue here; Inngest's runs live with Inngest.
      if (deps.jobsKind === 'in-process' && oldest !== null && oldest > stalledAfter)
        throw new HealthProblem(`a queued background run has waited ${oldest} s`)
      return figures
    }),
  ])
  const checks = { database, blob, rateLimiter, jobs }
  return { status: Object.values(checks).every((c) => c.ok) ? 'ok' : 'degraded', checks }
}

let cached: { at: number; report: Promise<HealthReport> } | undefined

/**
 * The endpoint is public and each check costs the dependencies a round trip (a Blob listing, an
 * Upstash command): answers within `ttlMs` of the last check share its result, so callers at any
 * rate cause at most one probe per interval per instance.
 */
export function checkHealthCached(deps: HealthDeps, ttlMs = 5_000): Promise<HealthReport> {
  const now = Date.now()
  if (!cached || now - cached.at >= ttlMs) cached = { at: now, report: checkHealth(deps) }
  return cached.report
}

export function resetHealthCacheForTests(): void {
  cached = undefined
}
