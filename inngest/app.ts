import { getLanguageModel } from '@/lib/ai/model'
import { type Config, getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { createJobsEngine, type JobDefinition, type JobsEngine } from '@/lib/jobs'
import { appJobsEngine, setAppJobsEngine } from '@/lib/jobs/app-engine'
import { getInngestClient } from '@/lib/jobs/inngest'
import { logger } from '@/lib/log'
import { getBlobStore } from '@/lib/storage'
import { createSymbolicator } from '@/lib/symbolication/symbolicate-session'
import { getDeliverer } from '@/lib/webhooks/runtime'
import { defineJobs, type JobDeps } from './jobs'

/**
 * The jobs' composition root: the app's adapters for handlers, the job list built from
 * configuration, and the engine that runs it. Nothing in lib/ imports the list, so the
 * domain the handlers call never imports it back.
 */

/** The app's adapters, resolved when a job runs (tests swap the deliverer, model and blob store). */
export async function appJobDeps(): Promise<JobDeps> {
  const config = getConfig()
  const db = await getDb()
  const blobs = getBlobStore()
  return {
    db,
    blobs,
    symbolicate: createSymbolicator({ db, blobs }),
    jobs: getJobsEngine(),
    baseUrl: config.baseUrl,
    ingestUrl: config.ingestUrl,
    model: getLanguageModel(),
    deliverer: getDeliverer(),
  }
}

/** Every job of the service with the app's adapters. Built on use (schedules come from configuration). */
export function buildJobDefinitions(config: Config): JobDefinition[] {
  return defineJobs(config, appJobDeps)
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
