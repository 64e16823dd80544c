'use server'

import { headers } from 'next/headers'
import { checkSignUpRate } from '@/lib/auth/sign-in-rate'
import { getDb } from '@/lib/db'
import { AppError } from '@/lib/errors'
import { logger } from '@/lib/log'
import { clientAddress } from '@/lib/ratelimit/client-address'
import { createFirstAccount } from '@/lib/users/create-first-account'
import { recordArgument, textArgument } from '@/lib/validation'

export interface SignUpInput {
  name: string
  email: string
  password: string
  organizationName: string
}

export type SignUpResult = { ok: true } | { ok: false; error: string }

export async function signUpAction(input: SignUpInput): Promise<SignUpResult> {
  // A public endpoint that hashes a password: rate-limited per address like sign-in.
  if (!(await checkSignUpRate(clientAddress(await headers()))).allowed)
    return { ok: false, error: 'Too many sign-up attempts from this address. Try again later.' }
  try {
    const fields = recordArgument(input)
    await createFirstAccount(await getDb(), {
      name: textArgument(fields.name),
      email: textArgument(fields.email),
      password: textArgument(fields.password),
      organizationName: textArgument(fields.organizationName),
    })
    return { ok: true }
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error: error.message }
    logger.error({ err: error }, 'first-run sign-up failed')
    return { ok: false, error: 'Sign-up failed because of a server error. Try again in a moment.' }
  }
}
