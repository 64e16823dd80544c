import type { Metadata } from 'next'
import { redirect } from 'next/navigation'
import { SignOutButton } from '@/app/_components/sign-out-button'
import { safeCallbackPath } from '@/lib/auth/callback-url'
import { getDb } from '@/lib/db'
import { getSignedInUser } from '@/lib/http/session'
import { hasAnyUser } from '@/lib/users/create-first-account'
import { LoginForm } from './login-form'

export const metadata: Metadata = { title: 'Sign in' }

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ callbackUrl?: string; error?: string; signedOut?: string }>
}) {
  const params = await searchParams
  const callbackPath = safeCallbackPath(params.callbackUrl)
  if (!(await hasAnyUser(await getDb()))) redirect('/signup')
  const user = await getSignedInUser()
  // Someone signed in without an organization stays here to read why (no redirect loop).
  if (user && user.organizations.length > 0) redirect(callbackPath)
  return (
    <main className="auth-shell">
      <div className="card auth-card">
        <h1>Sign in</h1>
        <p className="muted">Session Replay Issues</p>
        {params.signedOut ? (
          <p className="alert alert-info" role="status">
            You are signed out.
          </p>
        ) : null}
        {user ? (
          <>
            <p className="alert alert-error" role="alert">
              You are signed in as {user.email}, but this account is not a member of any organization. Ask an
              owner to invite you, or sign out and use another account.
            </p>
            <SignOutButton />
          </>
        ) : (
          <LoginForm callbackPath={callbackPath} initialError={params.error} />
        )}
      </div>
    </main>
  )
}
