import type { Inngest } from 'inngest'
import { getConfig, type JobsChoice } from '@/lib/config'
import { logger } from '@/lib/log'
import { createInProcessEngine, type InProcessOptions } from './in-process'
import { createInngestClient, createInngestEngine, getInngestClient } from './inngest'
import { getJobDefinitions } from './registry'
import type { JobDefinition, JobsEngine } from './types'

export { defineJob } from './define'
export { isNonRetriable, NonRetriableError } from './errors'
export { buildJobDefinitions, getJobDefinitions } from './registry'
export type * from './types'

export interface JobsEngineOptions {
  inProcess?: InProcessOptions
  /** The Inngest engine's client; one built from `choice` by default. */
  inngestClient?: Inngest
}

/** Builds an engine without starting it or touching the database. */
export function createJobsEngine(
  choice: JobsChoice,
  definitions: readonly JobDefinition[],
  options: JobsEngineOptions = {},
): JobsEngine {
  if (choice.kind === 'inngest')
    return createInngestEngine(options.inngestClient ?? createInngestClient(choice))
  return createInProcessEngine(definitions, options.inProcess)
}

// Kept on globalThis like the database: after a dev-mode module reload, sends must reach the
// engine that instrumentation started, not a fresh one that never runs anything.
const holder = globalThis as typeof globalThis & { __serviceJobsEngine?: JobsEngine }

/** The app's engine, chosen from configuration on first use. */
export function getJobsEngine(): JobsEngine {
  if (!holder.__serviceJobsEngine) {
    const config = getConfig()
    const choice = config.jobs
    const jobDefinitions = getJobDefinitions()
    holder.__serviceJobsEngine = createJobsEngine(choice, jobDefinitions, {
      inngestClient: choice.kind === 'inngest' ? getInngestClient() : undefined,
      inProcess: { production: config.nodeEnv === 'production' },
    })
    logger.info(
      {
        engine: choice.kind,
        functions: jobDefinitions.map((d) => d.id),
        ...(choice.kind === 'inngest' ? { dev: choice.dev } : {}),
      },
      'jobs engine selected',
    )
  }
  return holder.__serviceJobsEngine
}
