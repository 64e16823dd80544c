'use server'

import { revalidatePath } from 'next/cache'
import { getDb } from '@/lib/db'
import { AppError } from '@/lib/errors'
import { getSignedInUser } from '@/lib/http/session'
import { logger } from '@/lib/log'
import { revokeConsent } from '@/lib/oauth/revoke-consent'
import { textArgument } from '@/lib/validation'

export type RevokeResult = { ok: true } | { ok: false; error: string }

/** Revokes one of the signed-in user's consents and every token issued under it. */
export async function revokeConnectedAppAction(consentId: string): Promise<RevokeResult> {
  const user = await getSignedInUser()
  if (!user) return { ok: false, error: 'Your session has ended. Sign in again.' }
  try {
    await revokeConsent(await getDb(), user.id, textArgument(consentId))
    revalidatePath('/settings/connected-apps')
    return { ok: true }
  } catch (error) {
    if (error instanceof AppError)
      return { ok: false, error: `${error.message}: it may already be disconnected.` }
    logger.error({ err: error }, 'revoking a connected app failed')
    return { ok: false, error: 'The app could not be disconnected. Try again.' }
  }
}
