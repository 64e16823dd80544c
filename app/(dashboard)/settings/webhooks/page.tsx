import type { Metadata } from 'next'
import Link from 'next/link'
import { When } from '@/app/(dashboard)/_components/when'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { listEndpoints, MAX_ACTIVE_ENDPOINTS } from '@/lib/webhooks/endpoints'
import { WEBHOOK_EVENTS } from '@/lib/webhooks/events'
import { deliveryLog } from '@/lib/webhooks/log'
import { CreateWebhookForm } from './create-form'
import { DeliveryLog } from './delivery-log'
import { EndpointActions } from './endpoint-actions'

export const metadata: Metadata = { title: 'Webhooks' }

export default async function WebhooksPage() {
  const { organization } = await requireMember('/settings/webhooks')
  const { allowPrivateTargets } = getConfig().webhooks
  const header = (
    <section>
      <h1>Webhooks</h1>
      <p className="muted">
        Signed HTTPS callbacks when issues are created or change. Verify <code>Service-Signature</code> with
        the endpoint's secret; deliveries are at least once, so deduplicate by <code>id</code>.
      </p>
      {allowPrivateTargets ? (
        <div className="alert alert-error" role="alert">
          WEBHOOK_ALLOW_PRIVATE_TARGETS is on: deliveries may reach loopback and private addresses. Never use
          this setting in a deployment.
        </div>
      ) : null}
    </section>
  )
  if (organization.role !== 'owner')
    return (
      <>
        {header}
        <section className="card">
          <p>Only organization owners can manage webhooks.</p>
        </section>
      </>
    )
  const db = await getDb()
  const endpoints = await listEndpoints(db, organization.id)
  const active = endpoints.filter((e) => !e.revokedAt)
  const logs = await Promise.all(
    endpoints.map((e) => deliveryLog(db, { organizationId: organization.id, endpointId: e.id, limit: 10 })),
  )
  const paid = organization.plan === 'paid'
  return (
    <>
      {header}
      <section className="card">
        <h2>New endpoint</h2>
        {!paid ? (
          <p className="alert alert-info" data-testid="paid-plan-note">
            Webhooks are available on the paid plan. An instance operator (the installation's first user, or
            anyone the admin CLI made one) changes the plan under{' '}
            <Link href="/settings">Settings → Organization</Link>, or runs{' '}
            <code>npm run admin -- org:plan --org {organization.id} --plan paid</code>. Running your own
            installation? Its first organization starts on the paid plan, and setting{' '}
            <code>DEFAULT_PLAN=paid</code> starts new organizations on it too (see{' '}
            <code>docs/self-hosting.md</code>).
          </p>
        ) : active.length >= MAX_ACTIVE_ENDPOINTS ? (
          <p className="alert alert-info">
            {MAX_ACTIVE_ENDPOINTS} active endpoints is the maximum. Revoke one to add another.
          </p>
        ) : null}
        <CreateWebhookForm
          disabled={!paid || active.length >= MAX_ACTIVE_ENDPOINTS}
          eventTypes={WEBHOOK_EVENTS}
        />
      </section>
      {endpoints.map((e, i) => (
        <section className="card" key={e.id} data-testid="webhook-endpoint">
          <h2>
            {e.name}{' '}
            {e.revokedAt ? (
              <span className="badge badge-off">
                revoked <When date={e.revokedAt} />
              </span>
            ) : null}
          </h2>
          <p>
            <code>{e.url}</code> · secret <code>{e.secretPrefix}</code> ·{' '}
            {e.events.map((ev) => (
              <span className="badge" key={ev}>
                {ev}
              </span>
            ))}
          </p>
          <p>
            Last delivery: <When date={e.lastDeliveryAt} />
            {e.lastDeliveryAt ? ` · ${e.lastError ?? `HTTP ${e.lastStatus}`}` : ''}
          </p>
          {!e.revokedAt && paid ? (
            <EndpointActions endpointId={e.id} name={e.name} events={e.events} eventTypes={WEBHOOK_EVENTS} />
          ) : null}
          <details>
            <summary>Delivery log</summary>
            <DeliveryLog log={logs[i] ?? []} />
          </details>
        </section>
      ))}
    </>
  )
}
