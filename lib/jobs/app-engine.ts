import type { JobsEngine } from './types'

// Kept on globalThis like the database: after a dev-mode module reload, sends must reach the
// engine that instrumentation started, not a fresh one that never runs anything.
const holder = globalThis as typeof globalThis & { __serviceJobsEngine?: JobsEngine }

/**
 * The engine the app's composition root (`inngest/app.ts`) built, if it has built one in this
 * process. The port only holds it: building it needs the job list, which imports the domain,
 * which must not import that list back.
 */
export function appJobsEngine(): JobsEngine | undefined {
  return holder.__serviceJobsEngine
}

export function setAppJobsEngine(engine: JobsEngine | undefined): void {
  holder.__serviceJobsEngine = engine
}
