import type { z } from 'zod'
import { checkRetries } from './retries'
import type { JobDefinition } from './types'

/**
 * Keeps the payload type flowing into the handler while the result still fits the
 * untyped list below (handler is a method, so its parameter is checked bivariantly).
 * Refuses at definition time what either engine would refuse at start.
 */
export function defineJob<TSchema extends z.ZodType>(def: JobDefinition<TSchema>): JobDefinition<TSchema> {
  checkRetries(def)
  return def
}

/**
 * Every background job of the service; both engines serve exactly this list. Session
 * finalization, processing, insights and webhook delivery join it as they are built.
 */
export const jobDefinitions: JobDefinition[] = []
