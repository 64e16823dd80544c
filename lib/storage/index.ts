import { type BlobChoice, getConfig } from '@/lib/config'
import { logger } from '@/lib/log'
import { LocalBlobStore } from './local'
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
      throw new Error('S3 blob store: being built (issue 21)')
    case 'local':
      return new LocalBlobStore(choice.root)
  }
}

let cached: BlobStore | undefined

/** The process-wide blob store, chosen from the configuration on first use. */
export function getBlobStore(): BlobStore {
  if (!cached) {
    const choice = getConfig().blob
    cached = createBlobStore(choice)
    // The token is never logged; the root helps find local data
    logger.info(
      { blobStore: choice.kind, ...(choice.kind === 'local' ? { root: choice.root } : {}) },
      'blob store',
    )
  }
  return cached
}

/** Tests swap the process-wide store (or reset it after changing the configuration). */
export function setBlobStoreForTests(store: BlobStore | undefined): void {
  cached = store
}
