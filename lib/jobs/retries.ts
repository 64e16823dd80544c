import type { JobDefinition } from './types'

/** Inngest's ceiling; the in-process engine holds definitions to it too, so both accept the same ones. */
export const MAX_RETRIES = 20

/** Throws unless `retries` is an integer from 0 to 20; returns it otherwise. */
export function checkRetries(def: Pick<JobDefinition, 'id' | 'retries'>): number {
  if (!Number.isInteger(def.retries) || def.retries < 0 || def.retries > MAX_RETRIES)
    throw new Error(`Job ${def.id}: retries must be an integer from 0 to ${MAX_RETRIES} (Inngest's limit)`)
  return def.retries
}
