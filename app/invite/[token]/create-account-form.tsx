'use client'

import { useRouter } from 'next/navigation'
import { signIn } from 'next-auth/react'
import { type FormEvent, useState } from 'react'
import { Field, FormError } from '@/app/_components/form'
import { createAccountFromInvitationAction } from './actions'

/** Name and password for a new account; the e-mail is the invited one and cannot change. */
export function CreateAccountForm({
  token,
  email,
  passwordMinLength,
}: {
  token: string
  email: string
  passwordMinLength: number
}) {
  const router = useRouter()
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const password = String(form.get('password') ?? '')
    setPending(true)
    setError(null)
    const result = await createAccountFromInvitationAction(token, {
      name: String(form.get('name') ?? ''),
      password,
    })
    if (!result.ok) {
      setPending(false)
      setError(result.error)
      return
    }
    const signedIn = await signIn('credentials', { email: result.email, password, redirect: false })
    if (!signedIn || signedIn.error) {
      // The account exists and is a member; only the automatic sign-in failed.
      router.replace('/login')
      return
    }
    router.replace('/')
    router.refresh()
  }

  return (
    <form onSubmit={onSubmit}>
      <FormError message={error} />
      <Field label="E-mail" name="email" type="email" value={email} readOnly autoComplete="username" />
      <Field label="Your name" name="name" autoComplete="name" maxLength={100} />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        minLength={passwordMinLength}
        required
        hint={`At least ${passwordMinLength} characters.`}
      />
      <button className="btn btn-primary" type="submit" disabled={pending}>
        {pending ? 'Creating your account…' : 'Create account and join'}
      </button>
    </form>
  )
}
