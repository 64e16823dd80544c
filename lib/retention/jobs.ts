import { z } from 'zod'
import { getDb } from '@/lib/db'
import { defineJob } from '@/lib/jobs/define'
import type { JobDefinition } from '@/lib/jobs/types'
import { getBlobStore } from '@/lib/storage'
import { sweepRetention } from './sweep'

/** Hourly at :17 (off the hour, when most schedules fire): a backlog over one run's budget is worked off within hours. */
export const RETENTION_CRON = '17 * * * *'

export function retentionJobs(): JobDefinition[] {
  return [
    defineJob({
      id: 'retention-sweep',
      name: 'Delete replay data past each organization’s retention',
      trigger: { cron: RETENTION_CRON },
      retries: 2,
      payload: z.object({}).loose(),
      handler: async ({ step }) =>
        step.run('sweep', async () => sweepRetention(await getDb(), getBlobStore())),
    }),
  ]
}
