'use server'

import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure, actionMember } from '@/lib/http/actions'
import { previewSignal, type SignalPreview } from '@/lib/signals/preview-signal'
import { textArgument } from '@/lib/validation'

export type PreviewSignalResult = ActionResult<{ preview: SignalPreview }>

/** The create form's preview: called on a button, never per keystroke. */
export async function previewSignalAction(prompt: string): Promise<PreviewSignalResult> {
  const member = await actionMember()
  if (!member.ok) return member
  try {
    const preview = await previewSignal(await getDb(), {
      organizationId: member.organization.id,
      prompt: textArgument(prompt),
    })
    return { ok: true, preview }
  } catch (error) {
    return actionFailure(error, 'preview the signal')
  }
}
