'use server'

import { revalidatePath } from 'next/cache'
import { actorOfMember } from '@/lib/actor'
import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure, actionOwner } from '@/lib/http/actions'
import { setOrganizationRetention } from '@/lib/retention/set-retention'
import { formText } from '@/lib/validation'

/** How many days of replay data the organization keeps (docs/privacy.md#retention): owners only. */
export async function changeRetentionAction(
  _previous: ActionResult | null,
  form: FormData,
): Promise<ActionResult> {
  const owner = await actionOwner('change how long recordings are kept')
  if (!owner.ok) return owner
  try {
    const changed = await setOrganizationRetention(await getDb(), actorOfMember(owner), {
      organizationId: owner.organization.id,
      days: formText(form, 'days'),
    })
    revalidatePath('/settings/privacy')
    return { ok: true, message: `Recordings are now kept for ${changed.retentionDays} days.` }
  } catch (error) {
    return actionFailure(error, 'change how long recordings are kept')
  }
}
