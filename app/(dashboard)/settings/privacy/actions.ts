'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, ownerAction } from '@/lib/http/actions'
import { setOrganizationRetention } from '@/lib/retention/set-retention'
import { formText } from '@/lib/validation'

/** How many days of replay data the organization keeps (docs/privacy.md#retention): owners only. */
export const changeRetentionAction = ownerAction(
  { ownersOnly: 'change how long recordings are kept', what: 'change how long recordings are kept' },
  async (
    { db, organization, actor },
    _previous: ActionResult | null,
    form: FormData,
  ): Promise<ActionResult> => {
    const changed = await setOrganizationRetention(db, actor, {
      organizationId: organization.id,
      days: formText(form, 'days'),
    })
    revalidatePath('/settings/privacy')
    return { ok: true, message: `Recordings are now kept for ${changed.retentionDays} days.` }
  },
)
