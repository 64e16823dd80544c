import type { Metadata } from 'next'
import Link from 'next/link'
import { getDb } from '@/lib/db'
import { getSignedInUser } from '@/lib/http/session'
import { findInvitation, type InvitationStatus, invitedAccountExists } from '@/lib/members/find-invitation'
import { PASSWORD_MIN_LENGTH } from '@/lib/users/password'
import { AcceptButton } from './accept-button'
import { CreateAccountForm } from './create-account-form'
import { SwitchAccountButton } from './switch-account-button'

// The token is in the address: no Referer carries it to another site.
export const metadata: Metadata = { title: 'Invitation', referrer: 'no-referrer' }

const STALE: Record<Exclude<InvitationStatus, 'pending'> | 'unknown', { title: string; text: string }> = {
  unknown: {
    title: 'This invitation link is not valid',
    text: 'Check that you opened the whole link. If it still does not work, ask an owner of the organization for a new invitation link.',
  },
  accepted: {
    title: 'This invitation was already used',
    text: 'Each link works once. If you accepted it, sign in. Otherwise ask an owner of the organization for a new invitation link.',
  },
  revoked: {
    title: 'This invitation was revoked',
    text: 'An owner withdrew it or sent a newer link. Ask an owner of the organization for a new invitation link.',
  },
  expired: {
    title: 'This invitation has expired',
    text: 'Invitation links work for 7 days. Ask an owner of the organization for a new invitation link.',
  },
}

function Shell({ children }: { children: React.ReactNode }) {
  return (
    <main className="auth-shell">
      <div className="card auth-card">{children}</div>
    </main>
  )
}

export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params
  const db = await getDb()
  const invitation = await findInvitation(db, token)
  const here = `/invite/${encodeURIComponent(token)}`
  const signInHref = `/login?callbackUrl=${encodeURIComponent(here)}`

  if (invitation?.status !== 'pending') {
    const stale = STALE[invitation?.status ?? 'unknown']
    return (
      <Shell>
        <h1>{stale.title}</h1>
        <p className="muted">{stale.text}</p>
        <Link className="btn" href="/login">
          Go to sign in
        </Link>
      </Shell>
    )
  }

  const heading = (
    <>
      <h1>Join {invitation.organizationName}</h1>
      <p className="muted">
        You were invited as <strong>{invitation.email}</strong> to join{' '}
        <strong>{invitation.organizationName}</strong> as{' '}
        {invitation.role === 'owner' ? 'an owner' : 'a member'} on Session Replay Issues.
      </p>
    </>
  )

  const user = await getSignedInUser()
  if (user) {
    if (user.email !== invitation.email)
      return (
        <Shell>
          {heading}
          <p className="alert alert-error" role="alert">
            You are signed in as {user.email}, but this invitation is for {invitation.email}. Sign out, then
            sign in or create an account as {invitation.email}.
          </p>
          <SwitchAccountButton returnTo={here} />
        </Shell>
      )
    if (user.organizations.some((o) => o.id === invitation.organizationId))
      return (
        <Shell>
          {heading}
          <p className="alert alert-info">You are already a member of {invitation.organizationName}.</p>
          <Link className="btn" href="/">
            Go to the dashboard
          </Link>
        </Shell>
      )
    return (
      <Shell>
        {heading}
        <p>You are signed in as {user.email}.</p>
        <AcceptButton token={token} organizationName={invitation.organizationName} />
      </Shell>
    )
  }

  if (await invitedAccountExists(db, invitation.email))
    return (
      <Shell>
        {heading}
        <p>
          You already have an account for {invitation.email}. Sign in and you will come back here to accept
          the invitation.
        </p>
        <Link className="btn btn-primary" href={signInHref}>
          Sign in to accept
        </Link>
      </Shell>
    )

  return (
    <Shell>
      {heading}
      <p>Create your account to accept. The link works once and expires in 7 days from when it was sent.</p>
      <CreateAccountForm token={token} email={invitation.email} passwordMinLength={PASSWORD_MIN_LENGTH} />
      <p className="muted">
        Already have an account with this e-mail? <Link href={signInHref}>Sign in</Link> instead.
      </p>
    </Shell>
  )
}
