import type { Inngest } from 'inngest'
import type { JobsChoice } from '@/lib/config'
import { createInProcessEngine, type InProcessOptions } from './in-process'
import { createInngestClient, createInngestEngine } from './inngest'
import type { JobDefinition, JobsEngine } from './types'

export { appJobsEngine } from './app-engine'
export { cronEvery, every } from './cron'
export { defineJob } from './define'
export { isNonRetriable, NonRetriableError } from './errors'
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
