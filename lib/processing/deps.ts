import { getLanguageModel } from '@/lib/ai/model'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { getBlobStore } from '@/lib/storage'
import type { ProcessingDeps } from './process-session'

/** The app's adapters for background processing, resolved when a job runs. */
export async function getProcessingDeps(): Promise<ProcessingDeps> {
  const config = getConfig()
  // Imported here, not at module load: the jobs engine's registry imports this module.
  const { getJobsEngine } = await import('@/lib/jobs')
  return {
    db: await getDb(),
    blobs: getBlobStore(),
    jobs: getJobsEngine(),
    baseUrl: config.baseUrl,
    ingestUrl: config.ingestUrl,
    model: getLanguageModel(),
  }
}
