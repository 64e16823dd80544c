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
  { href: '/releases', label: 'Releases' },
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
        {/* On a phone only the logo shows (the name stays the link's accessible name), leaving
            the row to the organization's name. */}
        <Link className="brand" href="/">
          {/* biome-ignore lint/performance/noImgElement: a 24 px SVG, nothing for next/image to optimise */}
          <img className="brand-logo" src="/icon.svg" alt="" width={24} height={24} />
          <span className="brand-name">Session Replay Issues</span>
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
          <span
            className="organization-name"
            data-testid="header-organization-name"
            title={organization.name}
          >
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
