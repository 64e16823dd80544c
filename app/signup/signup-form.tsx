'use client'

import { useRouter } from 'next/navigation'
import { signIn } from 'next-auth/react'
import { type FormEvent, useState } from 'react'
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
      {error ? (
        <p className="alert alert-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="field">
        <label htmlFor="name">Your name</label>
        <input className="input" id="name" name="name" autoComplete="name" maxLength={100} />
      </div>
      <div className="field">
        <label htmlFor="email">E-mail</label>
        <input className="input" id="email" name="email" type="email" autoComplete="email" required />
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input
          className="input"
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={passwordMinLength}
          required
        />
        <span className="muted">At least {passwordMinLength} characters.</span>
      </div>
      <div className="field">
        <label htmlFor="organizationName">Organization name</label>
        <input className="input" id="organizationName" name="organizationName" required maxLength={100} />
      </div>
      <button className="btn btn-primary" type="submit" disabled={pending}>
        {pending ? 'Creating your account…' : 'Create account'}
      </button>
    </form>
  )
}
