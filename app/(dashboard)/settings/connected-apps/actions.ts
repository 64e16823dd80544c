'use server'

import { revalidatePath } from 'next/cache'
import { AppError } from '@/lib/errors'
import { userAction } from '@/lib/http/actions'
import { logger } from '@/lib/log'
import { revokeConsent } from '@/lib/oauth/revoke-consent'
import { textArgument } from '@/lib/validation'

export type RevokeResult = { ok: true } | { ok: false; error: string }

/** Revokes one of the signed-in user's consents and every token issued under it. */
export const revokeConnectedAppAction = userAction(
  {
    what: 'disconnect the app',
    // A consent that is gone is most likely one already disconnected in another tab.
    failure: (error) => {
      if (error instanceof AppError)
        return { ok: false, error: `${error.message}: it may already be disconnected.` }
      logger.error({ err: error }, 'revoking a connected app failed')
      return { ok: false, error: 'The app could not be disconnected. Try again.' }
    },
  },
  async ({ db, user }, consentId: string): Promise<RevokeResult> => {
    await revokeConsent(db, user.id, textArgument(consentId))
    revalidatePath('/settings/connected-apps')
    return { ok: true }
  },
)
