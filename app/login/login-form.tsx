'use client'

import { useRouter } from 'next/navigation'
import { signIn } from 'next-auth/react'
import { type FormEvent, useState } from 'react'
import { Field, FormError } from '@/app/_components/form'

const MESSAGES: Record<string, string> = {
  CredentialsSignin: 'Invalid e-mail or password.',
  RateLimited: 'Too many sign-in attempts. Wait a few minutes and try again.',
  NoOrganization: 'Your account is not a member of any organization. Ask an owner to invite you.',
  SessionRequired: 'Sign in to continue.',
}

function describe(error: string | undefined | null): string | null {
  if (!error) return null
  return MESSAGES[error] ?? 'Sign-in failed. Try again.'
}

export function LoginForm({ callbackPath, initialError }: { callbackPath: string; initialError?: string }) {
  const router = useRouter()
  const [error, setError] = useState<string | null>(describe(initialError))
  const [pending, setPending] = useState(false)

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    setPending(true)
    setError(null)
    const result = await signIn('credentials', {
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      redirect: false,
    })
    if (!result || result.error) {
      setPending(false)
      setError(describe(result?.error ?? 'CredentialsSignin'))
      return
    }
    router.replace(callbackPath)
    router.refresh()
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <FormError message={error} />
      <Field label="E-mail" name="email" type="email" autoComplete="username" required />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required />
      <button className="btn btn-primary" type="submit" disabled={pending}>
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  )
}
