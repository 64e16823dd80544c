import type { JobDefinition } from './types'

/** Throws unless a function's own concurrency limit, when it has one, is a positive integer. */
export function checkConcurrency(def: Pick<JobDefinition, 'id' | 'concurrency'>): number | undefined {
  if (def.concurrency === undefined) return undefined
  if (!Number.isInteger(def.concurrency) || def.concurrency < 1)
    throw new Error(`Job ${def.id}: concurrency must be a positive integer when set`)
  return def.concurrency
}
