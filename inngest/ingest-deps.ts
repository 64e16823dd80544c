import { getDb } from '@/lib/db'
import type { IngestDeps } from '@/lib/ingest/store-batch'
import { getBlobStore } from '@/lib/storage'
import { getJobsEngine } from './app'

/** The app's adapters for ingest, chosen once from configuration. */
export async function getIngestDeps(): Promise<IngestDeps> {
  return { db: await getDb(), blobs: getBlobStore(), jobs: getJobsEngine() }
}
