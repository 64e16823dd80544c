'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, ownerAction } from '@/lib/http/actions'
import { setMaskSettings } from '@/lib/privacy/mask-settings'
import { requestRemasking } from '@/lib/privacy/remaskings'
import { formText } from '@/lib/validation'

const PATH = '/settings/masking'

/** One rule a line, blank lines left out (the domain checks and bounds them). */
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)

/** A `datetime-local` field's value, read as UTC; empty means no bound. */
function utc(value: string): string | undefined {
  if (value === '') return undefined
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : value
}

/** The mask settings ingest and the recorder apply from now on (docs/privacy.md#re-masking): owners only. */
export const saveMaskSettingsAction = ownerAction(
  { ownersOnly: 'change the mask settings', what: 'change the mask settings' },
  async ({ db, actor }, _previous: ActionResult | null, form: FormData): Promise<ActionResult> => {
    const saved = await setMaskSettings(db, actor, {
      selectors: lines(formText(form, 'selectors')),
      patterns: lines(formText(form, 'patterns')),
    })
    revalidatePath(PATH)
    return {
      ok: true,
      message: `Saved: ${saved.selectors.length} selector(s) and ${saved.patterns.length} pattern(s) are masked in new recordings.`,
    }
  },
)

/** Re-masks stored sessions started within a time range (docs/privacy.md#re-masking): owners only. */
export const requestRemaskingAction = ownerAction(
  { ownersOnly: 're-mask stored sessions', what: 're-mask stored sessions' },
  async ({ db, actor }, _previous: ActionResult | null, form: FormData): Promise<ActionResult> => {
    await requestRemasking(db, actor, {
      selectors: lines(formText(form, 'selectors')),
      patterns: lines(formText(form, 'patterns')),
      from: utc(formText(form, 'from')),
      to: utc(formText(form, 'to')),
      updateRecorder: formText(form, 'updateRecorder') === 'on',
    })
    revalidatePath(PATH)
    return { ok: true, message: 'Re-masking started. Its progress and what it changed are listed below.' }
  },
)
