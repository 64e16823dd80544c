'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, ownerAction } from '@/lib/http/actions'
import { ERASURE_DUE_HOURS, requestErasure } from '@/lib/privacy/erasures'
import { parsePersonBody } from '@/lib/privacy/person-body'
import { formText } from '@/lib/validation'

const IDENTIFIER_FIELDS = new Set(['email', 'userId', 'anonymousId'])

/**
 * Erases one person from the dashboard (docs/privacy.md#erasure): owners only, and only after
 * the form's confirmation box is ticked, since nothing of it can be undone.
 */
export const requestErasureAction = ownerAction(
  { ownersOnly: 'erase a person’s data', what: 'request the erasure' },
  async ({ db, actor }, _previous: ActionResult | null, form: FormData): Promise<ActionResult> => {
    if (formText(form, 'confirm') !== 'on')
      return { ok: false, error: 'Tick the box to confirm: an erasure cannot be undone.' }
    const field = formText(form, 'identifier')
    const body = IDENTIFIER_FIELDS.has(field) ? { [field]: formText(form, 'value') } : {}
    await requestErasure(db, actor, parsePersonBody(body))
    revalidatePath('/settings/privacy')
    return {
      ok: true,
      message: `Erasure requested. It runs now and is finished within ${ERASURE_DUE_HOURS} hours; its progress is listed below.`,
    }
  },
)
