'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, memberAction } from '@/lib/http/actions'
import { setSessionPin } from '@/lib/sessions/pin-session'
import { textArgument } from '@/lib/validation'

/**
 * Pins or unpins a session (docs/privacy.md#retention). Any member may: keeping the session an
 * issue is being fixed from is part of the work, the pin is bounded, and the trail names who did it.
 */
export const setSessionPinAction = memberAction(
  { what: ([, pinned]) => (pinned ? 'pin the session' : 'unpin the session') },
  async ({ db, actor }, sessionId: string, pinned: boolean): Promise<ActionResult> => {
    const pin = await setSessionPin(db, actor, {
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
  },
)
