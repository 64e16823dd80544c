import Link from 'next/link'
import type { ReactNode } from 'react'
import { SignOutButton } from '@/app/_components/sign-out-button'
import { requireMember } from '@/lib/http/session'

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const { user, organization } = await requireMember()
  return (
    <>
      <header className="topbar">
        <span className="brand">Session Replay Issues</span>
        <nav aria-label="Main">
          <Link href="/">Overview</Link>
          <Link href="/settings/webhooks">Webhooks</Link>
          <Link href="/settings/connected-apps">Connected apps</Link>
        </nav>
        <nav aria-label="Account">
          <span className="muted" data-testid="current-user">
            {user.email} · {organization.name}
          </span>
          <SignOutButton />
        </nav>
      </header>
      <main className="main">{children}</main>
    </>
  )
}
