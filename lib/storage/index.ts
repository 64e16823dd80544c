import { type BlobChoice, getConfig } from '@/lib/config'
import { logger } from '@/lib/log'
import { LocalBlobStore } from './local'
import { S3BlobStore } from './s3'
import type { BlobStore } from './types'
import { VercelBlobStore } from './vercel'

export { InvalidBlobKeyError, isValidBlobKey } from './keys'
export type { BlobStore, PutOptions } from './types'

/** Builds the adapter for a configuration choice; no I/O, so tests can build as many as they like. */
export function createBlobStore(choice: BlobChoice): BlobStore {
  switch (choice.kind) {
    case 'vercel':
      return new VercelBlobStore(choice.token)
    case 's3':
      return new S3BlobStore(choice)
    case 'local':
      return new LocalBlobStore(choice.root)
  }
}

let cached: BlobStore | undefined

function whereTo(choice: BlobChoice): Record<string, string> {
  if (choice.kind === 'local') return { root: choice.root }
  if (choice.kind === 'vercel') return {}
  const where: Record<string, string> = { bucket: choice.bucket }
  if (choice.region) where.region = choice.region
  if (choice.endpoint) {
    // An endpoint may carry user:password; the log gets the address only
    const url = new URL(choice.endpoint)
    url.username = ''
    url.password = ''
    where.endpoint = url.toString().replace(/\/$/, '')
  }
  return where
}

/** The process-wide blob store, chosen from the configuration on first use. */
export function getBlobStore(): BlobStore {
  if (!cached) {
    const choice = getConfig().blob
    cached = createBlobStore(choice)
    // Where the data goes, never how to reach it: no token, and credentials come from the SDK
    logger.info({ blobStore: choice.kind, ...whereTo(choice) }, 'blob store')
  }
  return cached
}

/** Tests swap the process-wide store (or reset it after changing the configuration). */
export function setBlobStoreForTests(store: BlobStore | undefined): void {
  cached = store
}
