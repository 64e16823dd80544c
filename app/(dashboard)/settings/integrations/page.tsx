import type { Metadata } from 'next'
import Link from 'next/link'
import { When } from '@/app/(dashboard)/_components/when'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { type IntegrationSummary, listIntegrations } from '@/lib/integrations/list-integrations'
import { ticketShareLinksEnabled } from '@/lib/sharing/ticket-links'
import { ConnectForm } from './connect-form'
import { RevokeIntegrationButton } from './revoke-button'
import { TicketShareToggle } from './ticket-share-toggle'

export const metadata: Metadata = { title: 'Integrations' }

function whereTo(integration: IntegrationSummary): string {
  const { settings } = integration
  if (settings.kind === 'linear') return `team ${settings.teamKey} (${settings.teamName})`
  if (settings.kind === 'github') return `${settings.owner}/${settings.repo}`
  return 'incoming webhook'
}

const KIND_LABELS = { slack: 'Slack', linear: 'Linear', github: 'GitHub' } as const

export default async function IntegrationsPage() {
  const { organization } = await requireMember('/settings/integrations')
  const header = (
    <section>
      <h1>Integrations</h1>
      <p className="muted">
        Slack for alerts; Linear and GitHub Issues for creating a ticket from an issue in one click. Secrets
        are stored encrypted and never shown again. See docs/integrations.md for the permissions each needs.
      </p>
    </section>
  )
  if (organization.role !== 'owner')
    return (
      <>
        {header}
        <section className="card">
          <p>Only organization owners can manage integrations.</p>
        </section>
      </>
    )
  const db = await getDb()
  const [all, shareInTickets] = await Promise.all([
    listIntegrations(db, organization.id),
    ticketShareLinksEnabled(db, organization.id),
  ])
  const connected = (kind: 'linear' | 'github') => all.some((i) => i.kind === kind && !i.revokedAt)
  return (
    <>
      {header}
      <section className="card">
        <h2>Connect</h2>
        <ConnectForm kind="slack" disabled={false} />
        {/* Kept on the page once connected (disabled), so the form's confirmation stays in view. */}
        {connected('linear') ? (
          <p className="muted">Linear is connected. Disconnect it to connect another team or key.</p>
        ) : null}
        <ConnectForm kind="linear" disabled={connected('linear')} />
        {connected('github') ? (
          <p className="muted">GitHub is connected. Disconnect it to connect another repository or token.</p>
        ) : null}
        <ConnectForm kind="github" disabled={connected('github')} />
      </section>
      <section className="card" aria-labelledby="ticket-links-heading">
        <h2 id="ticket-links-heading">Replay links in tickets</h2>
        <TicketShareToggle enabled={shareInTickets} />
      </section>
      {all.map((i) => (
        <section className="card" key={i.id} data-testid="integration">
          <h2>
            {i.name} <span className="badge">{KIND_LABELS[i.kind]}</span>{' '}
            {i.revokedAt ? (
              <span className="badge badge-off">
                disconnected <When date={i.revokedAt} />
              </span>
            ) : null}
          </h2>
          <p>
            {whereTo(i)} · secret <code>{i.secretHint}</code> · connected <When date={i.createdAt} />
          </p>
          <p>
            Last delivery: <When date={i.lastDeliveryAt} />
            {i.lastDeliveryAt ? ` · ${i.lastError ?? `HTTP ${i.lastStatus}`}` : ''}
          </p>
          <div className="toolbar">
            <Link className="btn" href={`/settings/integrations/${i.id}`}>
              Delivery log
            </Link>
            {i.revokedAt ? null : <RevokeIntegrationButton integrationId={i.id} name={i.name} />}
          </div>
        </section>
      ))}
    </>
  )
}
