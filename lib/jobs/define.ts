import type { z } from 'zod'
import { checkConcurrency } from './concurrency'
import { checkRetries } from './retries'
import type { JobDefinition } from './types'

/**
 * Keeps the payload type flowing into the handler while the result still fits the
 * untyped registry (handler is a method, so its parameter is checked bivariantly).
 * Refuses at definition time what either engine would refuse at start.
 */
export function defineJob<TSchema extends z.ZodType>(def: JobDefinition<TSchema>): JobDefinition<TSchema> {
  checkRetries(def)
  checkConcurrency(def)
  return def
}
