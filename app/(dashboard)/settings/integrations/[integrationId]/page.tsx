import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { AttemptLines, DeliveryStatusBadge } from '@/app/(dashboard)/_components/delivery-cells'
import { When } from '@/app/(dashboard)/_components/when'
import { getDb } from '@/lib/db'
import { NotFoundError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'
import { integrationDeliveryLog } from '@/lib/integrations/delivery-log'

export const metadata: Metadata = { title: 'Integration delivery log' }

/** Every message and ticket sent through one integration, newest first, a page at a time. */
export default async function IntegrationLogPage({
  params,
  searchParams,
}: {
  params: Promise<{ integrationId: string }>
  searchParams: Promise<{ page?: string | string[] }>
}) {
  const { integrationId } = await params
  const { page: rawPage } = await searchParams
  const { organization } = await requireMember(`/settings/integrations/${encodeURIComponent(integrationId)}`)
  if (organization.role !== 'owner')
    return (
      <section className="card">
        <p>Only organization owners can manage integrations.</p>
      </section>
    )
  const page = Number.parseInt(typeof rawPage === 'string' ? rawPage : '1', 10) || 1
  let log: Awaited<ReturnType<typeof integrationDeliveryLog>>
  try {
    log = await integrationDeliveryLog(await getDb(), {
      organizationId: organization.id,
      integrationId,
      page,
    })
  } catch (error) {
    if (error instanceof NotFoundError) notFound()
    throw error
  }
  return (
    <>
      <section>
        <p>
          <Link href="/settings/integrations">← Integrations</Link>
        </p>
        <h1>{log.integration.name}: delivery log</h1>
        <p className="muted">
          Each attempt: when, how long, the status or error label. Never a provider's answer.
        </p>
      </section>
      <section className="card">
        {log.deliveries.length === 0 ? (
          <p className="muted">No deliveries yet.</p>
        ) : (
          <table className="table" data-testid="integration-log">
            <thead>
              <tr>
                <th>What</th>
                <th>Status</th>
                <th>Attempts</th>
              </tr>
            </thead>
            <tbody>
              {log.deliveries.map((d) => (
                <tr key={d.id}>
                  <td>
                    <span className="badge">{d.purpose}</span>{' '}
                    {d.issueId ? <Link href={`/issues/${d.issueId}`}>issue</Link> : null}{' '}
                    <When date={d.createdAt} />
                  </td>
                  <td>
                    <DeliveryStatusBadge status={d.status} />
                  </td>
                  <td>
                    <AttemptLines attempts={d.log} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p className="toolbar">
          {log.page > 1 ? <Link href={`?page=${log.page - 1}`}>← Newer</Link> : null}
          {log.hasMore ? <Link href={`?page=${log.page + 1}`}>Older →</Link> : null}
        </p>
      </section>
    </>
  )
}
