import { getJobsEngine } from '@/inngest/app'
import { getDb } from '@/lib/db'
import { getBlobStore } from '@/lib/storage'
import type { IngestDeps } from './store-batch'

/** The app's adapters for ingest, chosen once from configuration. */
export async function getIngestDeps(): Promise<IngestDeps> {
  return { db: await getDb(), blobs: getBlobStore(), jobs: getJobsEngine() }
}
