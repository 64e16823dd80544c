import type { Config } from '@/lib/config'
import { getConfig } from '@/lib/config'
import { processingJobs } from '@/lib/processing/jobs'
import { retentionJobs } from '@/lib/retention/jobs'
import { webhookJobs } from '@/lib/webhooks/jobs'
import type { JobDefinition } from './types'

export { defineJob } from './define'

/**
 * Every background job of the service; both engines serve exactly this list. Built on first
 * use (schedules come from configuration), never at import time.
 */
export function buildJobDefinitions(config: Config): JobDefinition[] {
  return [...processingJobs(config), ...webhookJobs(config), ...retentionJobs()]
}

let cached: JobDefinition[] | undefined

export function getJobDefinitions(): JobDefinition[] {
  cached ??= buildJobDefinitions(getConfig())
  return cached
}
