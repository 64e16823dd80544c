'use server'

import { type ActionResult, memberAction } from '@/lib/http/actions'
import { previewSignal, type SignalPreview } from '@/lib/signals/preview-signal'
import { textArgument } from '@/lib/validation'

export type PreviewSignalResult = ActionResult<{ preview: SignalPreview }>

/** The create form's preview: called on a button, never per keystroke. */
export const previewSignalAction = memberAction(
  { what: 'preview the signal' },
  async ({ db, organization }, prompt: string): Promise<PreviewSignalResult> => {
    const preview = await previewSignal(db, { organizationId: organization.id, prompt: textArgument(prompt) })
    return { ok: true, preview }
  },
)
