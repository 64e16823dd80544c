'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, memberAction } from '@/lib/http/actions'
import { setSessionPin } from '@/lib/sessions/pin-session'
import { createShareLink, revokeShareLink } from '@/lib/sharing/share-links'
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

export type CreateShareLinkResult = ActionResult<{ message: string; url: string; embedUrl: string }>

/**
 * Creates a share link (docs/sharing.md). Any member may, as with the Data API's write:issues
 * keys: the link is bounded in time, revocable, and the trail names who made it.
 */
export const createShareLinkAction = memberAction(
  { what: 'create the share link' },
  async (
    { db, actor },
    sessionId: string,
    expiresInDays: number,
    startAtMs: number | null,
  ): Promise<CreateShareLinkResult> => {
    const link = await createShareLink(db, actor, {
      sessionId: textArgument(sessionId),
      expiresInDays,
      startAtMs,
    })
    revalidatePath(`/sessions/${link.sessionId}`)
    return {
      ok: true,
      message: `Link created: it works until ${link.expiresAt.slice(0, 10)}. Copy it now: it is not shown again.`,
      url: link.url,
      embedUrl: link.embedUrl,
    }
  },
)

export const revokeShareLinkAction = memberAction(
  { what: 'revoke the share link' },
  async ({ db, actor }, linkId: string): Promise<ActionResult> => {
    const link = await revokeShareLink(db, actor, textArgument(linkId))
    revalidatePath(`/sessions/${link.sessionId}`)
    return { ok: true, message: 'Revoked: the link no longer opens the replay.' }
  },
)
