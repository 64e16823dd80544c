'use server'

import { headers } from 'next/headers'
import { checkSignUpRate } from '@/lib/auth/sign-in-rate'
import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure } from '@/lib/http/actions'
import { getSignedInUser } from '@/lib/http/session'
import { acceptInvitation } from '@/lib/members/accept-invitation'
import { acceptInvitationWithNewAccount } from '@/lib/members/accept-with-new-account'
import { clientAddress } from '@/lib/ratelimit/client-address'
import { recordArgument, textArgument } from '@/lib/validation'

/**
 * Creates the invited person's account; the client then signs in with the same e-mail and
 * password. Public and password-hashing, so rate-limited per address like first-run sign-up.
 */
export async function createAccountFromInvitationAction(
  token: string,
  input: { name: string; password: string },
): Promise<ActionResult<{ email: string }>> {
  if (!(await checkSignUpRate(clientAddress(await headers()))).allowed)
    return { ok: false, error: 'Too many sign-up attempts from this address. Try again later.' }
  try {
    const fields = recordArgument(input)
    const account = await acceptInvitationWithNewAccount(await getDb(), textArgument(token), {
      name: textArgument(fields.name),
      password: textArgument(fields.password),
    })
    return { ok: true, email: account.email }
  } catch (error) {
    return actionFailure(error, 'create your account')
  }
}

/** The signed-in account joins the organization it was invited to. */
export async function acceptInvitationAction(token: string): Promise<ActionResult> {
  const user = await getSignedInUser()
  if (!user) return { ok: false, error: 'Your session has ended. Sign in again, then open the link again.' }
  try {
    const accepted = await acceptInvitation(await getDb(), textArgument(token), {
      id: user.id,
      email: user.email,
    })
    return {
      ok: true,
      message: accepted.alreadyMember ? 'You were already a member.' : 'You joined the organization.',
    }
  } catch (error) {
    return actionFailure(error, 'accept the invitation')
  }
}
