import type { Db } from '@/db/client'
import { getLanguageModel } from '@/lib/ai/model'
import { type Config, getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { createJobsEngine, type JobDefinition, type JobsEngine } from '@/lib/jobs'
import { appJobsEngine, setAppJobsEngine } from '@/lib/jobs/app-engine'
import { createInProcessEngine, type InProcessEngine, type InProcessOptions } from '@/lib/jobs/in-process'
import { getInngestClient } from '@/lib/jobs/inngest'
import { logger } from '@/lib/log'
import { createSymbolicator } from '@/lib/processing/symbolicator'
import { getBlobStore } from '@/lib/storage'
import { getDeliverer } from '@/lib/webhooks/runtime'
import { defineJobs, type JobDeps } from './jobs'

/**
 * The jobs' composition root: the app's adapters for handlers, the job list built from
 * configuration, and the engine that runs it. Nothing in lib/ imports the list, so the
 * domain the handlers call never imports it back.
 */

/**
 * The configured adapters around a database and an engine: the app's own, or those of
 * `admin jobs:run`, which runs the list on the CLI's database through an engine of its own.
 */
export function jobDepsFor(db: Db, jobs: JobsEngine): JobDeps {
  const config = getConfig()
  const blobs = getBlobStore()
  return {
    db,
    blobs,
    symbolicate: createSymbolicator({ db, blobs }),
    jobs,
    baseUrl: config.baseUrl,
    ingestUrl: config.ingestUrl,
    model: getLanguageModel(),
    deliverer: getDeliverer(),
  }
}

/** The app's adapters, resolved when a job runs (tests swap the deliverer, model and blob store). */
export async function appJobDeps(): Promise<JobDeps> {
  return jobDepsFor(await getDb(), getJobsEngine())
}

/** Every job of the service with the app's adapters. Built on use (schedules come from configuration). */
export function buildJobDefinitions(config: Config): JobDefinition[] {
  return defineJobs(config, appJobDeps)
}

/**
 * The list on an in-process engine of its own over `db`, whose handlers get `db` and that
 * engine: for `admin jobs:run` (lib/cli), which runs the jobs in its own process and database
 * handle whatever engine the app is configured with, and never starts it.
 */
export function createLocalJobsEngine(
  db: Db,
  options: Omit<InProcessOptions, 'db'> = {},
): { engine: InProcessEngine; definitions: JobDefinition[] } {
  const definitions = defineJobs(getConfig(), async () => jobDepsFor(db, engine))
  const engine = createInProcessEngine(definitions, { ...options, db: async () => db })
  return { engine, definitions }
}

let cached: JobDefinition[] | undefined

export function getJobDefinitions(): JobDefinition[] {
  cached ??= buildJobDefinitions(getConfig())
  return cached
}

/** The app's engine, chosen from configuration on first use. */
export function getJobsEngine(): JobsEngine {
  const existing = appJobsEngine()
  if (existing) return existing
  const config = getConfig()
  const choice = config.jobs
  const jobDefinitions = getJobDefinitions()
  const engine = createJobsEngine(choice, jobDefinitions, {
    inngestClient: choice.kind === 'inngest' ? getInngestClient() : undefined,
    inProcess: { production: config.nodeEnv === 'production', leaseMs: config.jobsLeaseSeconds * 1000 },
  })
  setAppJobsEngine(engine)
  logger.info(
    {
      engine: choice.kind,
      functions: jobDefinitions.map((d) => d.id),
      ...(choice.kind === 'inngest' ? { dev: choice.dev } : {}),
    },
    'jobs engine selected',
  )
  return engine
}
