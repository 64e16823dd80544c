'use server'

import { revalidatePath } from 'next/cache'
import { actorOfMember } from '@/lib/actor'
import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure, actionMember } from '@/lib/http/actions'
import { setSessionPin } from '@/lib/sessions/pin-session'
import { textArgument } from '@/lib/validation'

/**
 * Pins or unpins a session (docs/privacy.md#retention). Any member may: keeping the session an
 * issue is being fixed from is part of the work, the pin is bounded, and the trail names who did it.
 */
export async function setSessionPinAction(sessionId: string, pinned: boolean): Promise<ActionResult> {
  const member = await actionMember()
  if (!member.ok) return member
  const what = pinned ? 'pin the session' : 'unpin the session'
  try {
    const pin = await setSessionPin(await getDb(), actorOfMember(member), {
      sessionId: textArgument(sessionId),
      pinned: pinned === true,
    })
    revalidatePath(`/sessions/${pin.sessionId}`)
    return {
      ok: true,
      message: pin.pinnedAt
        ? `Pinned: kept until ${pin.keptUntil.slice(0, 10)}.`
        : `Unpinned: kept until ${pin.keptUntil.slice(0, 10)}.`,
    }
  } catch (error) {
    return actionFailure(error, what)
  }
}
