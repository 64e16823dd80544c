'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, ownerAction } from '@/lib/http/actions'
import { requestExport } from '@/lib/privacy/export-request'
import { EXPORT_LIFETIME_DAYS } from '@/lib/privacy/export-view'
import { parsePersonBody } from '@/lib/privacy/person-body'
import { formText } from '@/lib/validation'

const IDENTIFIER_FIELDS = new Set(['email', 'userId', 'anonymousId'])

/**
 * An access request from the dashboard (docs/privacy.md#exports): owners only. The form names
 * the person as the Data API's body does, one identifier of a chosen kind.
 */
export const requestExportAction = ownerAction(
  { ownersOnly: 'export a person’s data', what: 'request the export' },
  async ({ db, actor }, _previous: ActionResult | null, form: FormData): Promise<ActionResult> => {
    const field = formText(form, 'identifier')
    const body = IDENTIFIER_FIELDS.has(field) ? { [field]: formText(form, 'value') } : {}
    await requestExport(db, actor, parsePersonBody(body))
    revalidatePath('/settings/privacy')
    return {
      ok: true,
      message: `Export requested. It appears below when ready and can be downloaded for ${EXPORT_LIFETIME_DAYS} days.`,
    }
  },
)
