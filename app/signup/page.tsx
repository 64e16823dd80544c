import type { Metadata } from 'next'
import Link from 'next/link'
import { getDb } from '@/lib/db'
import { hasAnyUser } from '@/lib/users/create-first-account'
import { PASSWORD_MIN_LENGTH } from '@/lib/users/password'
import { SignupForm } from './signup-form'

export const metadata: Metadata = { title: 'Create your account' }

export default async function SignupPage() {
  const closed = await hasAnyUser(await getDb())
  return (
    <main className="auth-shell">
      <div className="card auth-card">
        {closed ? (
          <>
            <h1>Sign-up is closed</h1>
            <p className="muted">
              This installation already has an owner. Ask them to invite you, or sign in if you have an
              account.
            </p>
            <Link className="btn" href="/login">
              Go to sign in
            </Link>
          </>
        ) : (
          <>
            <h1>Set up your installation</h1>
            <p className="muted">
              Create the first account and your organization. You will be its owner and can invite your team
              later.
            </p>
            <SignupForm passwordMinLength={PASSWORD_MIN_LENGTH} />
          </>
        )}
      </div>
    </main>
  )
}
