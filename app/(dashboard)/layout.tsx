import Link from 'next/link'
import type { ReactNode } from 'react'
import { SignOutButton } from '@/app/_components/sign-out-button'
import { requireMember } from '@/lib/http/session'
import { NavLinks } from './_components/main-nav'

const MAIN_NAV = [
  { href: '/', label: 'Overview' },
  { href: '/issues', label: 'Issues' },
  { href: '/sessions', label: 'Sessions' },
  { href: '/signals', label: 'Signals' },
  { href: '/insights', label: 'Insights' },
  { href: '/settings', label: 'Settings' },
]

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const { user, organization } = await requireMember()
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link className="brand" href="/">
          Session Replay Issues
        </Link>
        <NavLinks items={MAIN_NAV} label="Main" className="main-nav" />
        <div className="account">
          <span className="muted" data-testid="current-user">
            {user.email} · {organization.name}
          </span>
          <SignOutButton />
        </div>
      </header>
      <main className="main" id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  )
}
