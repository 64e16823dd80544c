'use client'

import { useRouter } from 'next/navigation'
import { signIn } from 'next-auth/react'
import { type FormEvent, useState } from 'react'
import { Field, FormError } from '@/app/_components/form'
import { signUpAction } from './actions'

export function SignupForm({ passwordMinLength }: { passwordMinLength: number }) {
  const router = useRouter()
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const input = {
      name: String(form.get('name') ?? ''),
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      organizationName: String(form.get('organizationName') ?? ''),
    }
    setPending(true)
    setError(null)
    const result = await signUpAction(input)
    if (!result.ok) {
      setPending(false)
      setError(result.error)
      return
    }
    const signedIn = await signIn('credentials', {
      email: input.email,
      password: input.password,
      redirect: false,
    })
    if (!signedIn || signedIn.error) {
      router.replace('/login')
      return
    }
    router.replace('/')
    router.refresh()
  }

  return (
    <form onSubmit={onSubmit}>
      <FormError message={error} />
      <Field label="Your name" name="name" autoComplete="name" maxLength={100} />
      <Field label="E-mail" name="email" type="email" autoComplete="email" required />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        minLength={passwordMinLength}
        required
        hint={`At least ${passwordMinLength} characters.`}
      />
      <Field label="Organization name" name="organizationName" required maxLength={100} />
      <button className="btn btn-primary" type="submit" disabled={pending}>
        {pending ? 'Creating your account…' : 'Create account'}
      </button>
    </form>
  )
}
