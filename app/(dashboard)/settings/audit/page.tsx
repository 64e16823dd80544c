import type { Metadata } from 'next'
import Link from 'next/link'
import { When } from '@/app/(dashboard)/_components/when'
import { AUDIT_ACTIONS } from '@/lib/audit/actions'
import { AUDIT_EVENTS_PAGE, listAuditEvents } from '@/lib/audit/list-audit-events'
import { AUDIT_RETENTION_DAYS } from '@/lib/audit/prune'
import type { AuditEvent } from '@/lib/audit/views'
import { getDb } from '@/lib/db'
import { InvalidInputError } from '@/lib/errors'
import { requireMember } from '@/lib/http/session'

export const metadata: Metadata = { title: 'Audit log' }

type Param = string | string[] | undefined
const one = (value: Param) => (Array.isArray(value) ? value[0] : value)

const ACTOR_KINDS: Record<AuditEvent['actor']['type'], string> = {
  user: 'member',
  credential: 'API key',
  oauth_client: 'connected app',
  system: 'operator',
}

function pageHref(action: string | undefined, cursor?: string): string {
  const params = new URLSearchParams()
  if (action) params.set('action', action)
  if (cursor) params.set('cursor', cursor)
  const query = params.toString()
  return query ? `/settings/audit?${query}` : '/settings/audit'
}

/** The entry's metadata as one short line: it holds settings and counts, never recorded content. */
function details(metadata: AuditEvent['metadata']): string {
  if (!metadata) return ''
  const text = JSON.stringify(metadata)
  return text.length > 300 ? `${text.slice(0, 299)}…` : text
}

function Target({ event }: { event: AuditEvent }) {
  if (!event.targetType) return <span className="muted">–</span>
  if (event.targetType === 'session' && event.targetId)
    return (
      <>
        session <Link href={`/sessions/${event.targetId}`}>{event.targetId.slice(0, 8)}</Link>
      </>
    )
  return (
    <>
      {event.targetType} {event.targetId ? <code>{event.targetId}</code> : null}
    </>
  )
}

/** The organization's audit trail (docs/privacy.md#audit-trail): owners only, newest first. */
export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<{ action?: Param; cursor?: Param }>
}) {
  const { organization } = await requireMember('/settings/audit')
  const header = (
    <section>
      <h1>Audit log</h1>
      <p className="muted">
        Who viewed a replay, exported, erased or re-masked data, changed retention or masking, pinned sessions
        and created or revoked keys. Entries cannot be changed and are kept for {AUDIT_RETENTION_DAYS} days.
      </p>
    </section>
  )
  if (organization.role !== 'owner')
    return (
      <>
        {header}
        <section className="card" data-testid="audit-owners-only">
          <p>Only organization owners can see the audit log.</p>
        </section>
      </>
    )
  const params = await searchParams
  const chosen = one(params.action)
  const action = chosen && (AUDIT_ACTIONS as readonly string[]).includes(chosen) ? chosen : undefined
  const cursor = one(params.cursor) || undefined
  let page: Awaited<ReturnType<typeof listAuditEvents>> | null = null
  try {
    page = await listAuditEvents(await getDb(), organization.id, {
      limit: AUDIT_EVENTS_PAGE.default,
      cursor,
      action,
    })
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error
  }
  const now = Date.now()
  return (
    <>
      {header}
      <form className="inline-form" method="get" aria-label="Filter the audit log">
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <select className="input" id="audit-action" name="action" defaultValue={action ?? ''}>
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <button className="btn" type="submit">
          Show
        </button>
      </form>
      {!page ? (
        <div className="alert alert-error" role="alert">
          This page link no longer fits the log. <Link href={pageHref(action)}>First page</Link>
        </div>
      ) : page.items.length === 0 ? (
        <section className="card empty-state">
          <p>{cursor ? 'No more entries.' : 'No entries yet.'}</p>
        </section>
      ) : (
        <section className="card">
          <table className="table" data-testid="audit-entries">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((event) => (
                <tr key={event.id} data-testid="audit-entry">
                  <td>
                    <When date={event.createdAt} now={now} />
                  </td>
                  <td>
                    {event.actor.name ?? <code>{event.actor.id ?? '–'}</code>}{' '}
                    <span className="muted">({ACTOR_KINDS[event.actor.type]})</span>
                  </td>
                  <td>
                    <code>{event.action}</code>
                  </td>
                  <td>
                    <Target event={event} />
                  </td>
                  <td className="muted">{details(event.metadata)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {page.nextCursor ? (
            <p>
              <Link href={pageHref(action, page.nextCursor)}>Older entries</Link>
            </p>
          ) : null}
        </section>
      )}
    </>
  )
}
