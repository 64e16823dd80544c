import Link from 'next/link'
import type { ReactNode } from 'react'
import { SignOutButton } from '@/app/_components/sign-out-button'
import { requireMember } from '@/lib/http/session'
import { MainMenu } from './_components/main-nav'

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
        {/* Names of any length stay on one line, cut with an ellipsis; the title shows them whole
            and screen readers read the whole text. */}
        <span className="current-user" data-testid="current-user">
          <span className="user-email" title={user.email}>
            {user.email}
          </span>
          <span className="user-separator" aria-hidden="true">
            {' · '}
          </span>
          <span className="organization-name" data-testid="organization-name" title={organization.name}>
            {organization.name}
          </span>
        </span>
        <MainMenu
          items={MAIN_NAV}
          label="Main"
          extra={
            <>
              <span className="menu-account muted">Signed in as {user.email}</span>
              <SignOutButton />
            </>
          }
        />
      </header>
      <main className="main" id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  )
}
