import type { ReactNode } from 'react'
import { NavLinks } from '../_components/main-nav'

const SETTINGS_NAV = [
  { href: '/settings', label: 'Organization', exact: true },
  { href: '/settings/keys', label: 'Keys' },
  { href: '/settings/mcp', label: 'MCP' },
  { href: '/settings/webhooks', label: 'Webhooks' },
  { href: '/settings/integrations', label: 'Integrations' },
  { href: '/settings/alerts', label: 'Alerts' },
  { href: '/settings/source-maps', label: 'Source maps' },
  { href: '/settings/connected-apps', label: 'Connected apps' },
  { href: '/settings/privacy', label: 'Privacy' },
  { href: '/settings/masking', label: 'Masking' },
  { href: '/settings/audit', label: 'Audit log' },
]

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="settings">
      <NavLinks items={SETTINGS_NAV} label="Settings" className="subnav" />
      <div className="settings-body">{children}</div>
    </div>
  )
}
