import type { Metadata } from 'next'
import { redirect } from 'next/navigation'
import { getDb } from '@/lib/db'
import { safeCallbackPath } from '@/lib/http/callback-url'
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
  if (await getSignedInUser()) redirect(callbackPath)
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
        <LoginForm callbackPath={callbackPath} initialError={params.error} />
      </div>
    </main>
  )
}
