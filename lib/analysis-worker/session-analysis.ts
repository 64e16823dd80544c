/**
 * The process-wide analysis pool and its configured budget. Beside the pool, so that what sends
 * work to it (processing, symbolication, upload checks) depends on this folder, not on one
 * another's.
 */
import { getConfig } from '@/lib/config'
import { type AnalysisBudget, AnalysisPool } from './pool'

/** Where sessions are analysed and within what budget. */
export interface SessionAnalysis {
  pool: AnalysisPool
  budget: AnalysisBudget
}

// As many warm workers as the in-process engine runs handlers at once (its default); more
// analyses at once (Inngest, the CLI beside a server) wait for a free worker.
const POOL_SIZE = 3
const IDLE_MS = 60_000

// Kept on globalThis like the jobs engine: a dev-mode module reload must not leak workers.
const holder = globalThis as typeof globalThis & { __serviceAnalysisPool?: AnalysisPool }

/** The process-wide pool and the configured budget (ANALYSIS_TIMEOUT_SECONDS, ANALYSIS_MEMORY_MB). */
export function getSessionAnalysis(): SessionAnalysis {
  holder.__serviceAnalysisPool ??= new AnalysisPool({ size: POOL_SIZE, idleMs: IDLE_MS })
  const { timeoutSeconds, memoryMb } = getConfig().analysis
  return { pool: holder.__serviceAnalysisPool, budget: { timeoutMs: timeoutSeconds * 1000, memoryMb } }
}

/** Tests swap in a pool of their own (another worker entry); undefined closes it and goes back. */
export async function setAnalysisPoolForTests(pool: AnalysisPool | undefined): Promise<void> {
  const previous = holder.__serviceAnalysisPool
  holder.__serviceAnalysisPool = pool
  if (previous && previous !== pool) await previous.close()
}

/** Seconds as limits are written: whole when they are, else to a tenth. */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000
  return Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(1)
}
