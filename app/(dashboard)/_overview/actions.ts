'use server'

import { getDb } from '@/lib/db'
import { actionMember } from '@/lib/http/actions'
import { type FirstRunProgress, getFirstRunProgress } from '@/lib/orgs/first-run'

/** Polled by the overview's getting-started steps while some remain. */
export async function firstRunProgressAction(): Promise<FirstRunProgress | null> {
  const member = await actionMember()
  if (!member.ok) return null
  return getFirstRunProgress(await getDb(), member.organization.id)
}
