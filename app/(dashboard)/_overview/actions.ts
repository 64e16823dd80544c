'use server'

import { memberAction } from '@/lib/http/actions'
import { getFirstRunProgress } from '@/lib/orgs/first-run'

/** Polled by the overview's getting-started steps while some remain. */
export const firstRunProgressAction = memberAction(
  { what: 'read the getting-started progress' },
  async ({ db, organization }) =>
    ({ ok: true, progress: await getFirstRunProgress(db, organization.id) }) as const,
)
