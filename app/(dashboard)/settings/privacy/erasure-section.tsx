import { getDb } from '@/lib/db'
import type { MemberContext } from '@/lib/http/session'
import { ERASURE_DUE_HOURS, listErasures } from '@/lib/privacy/erasures'
import { countsText, PERSON_KIND_LABELS, requestStatus, utcTime } from '../_components/privacy-requests'
import { ErasureForm } from './erasure-form'

/**
 * Erasure of one person (docs/privacy.md#erasure): owners request it; everyone sees past
 * erasures with their status and counts (never the person, which is not kept).
 */
export async function ErasureSection({ member }: { member: MemberContext }) {
  const isOwner = member.organization.role === 'owner'
  const { items } = await listErasures(await getDb(), member.organization.id, { limit: 20 })
  return (
    <section className="card" aria-labelledby="erasure-heading">
      <h2 id="erasure-heading">Erase a person</h2>
      <p className="muted">
        Removes every session of one person — recordings, timelines, links to issues and signals — and what
        was derived from them, within {ERASURE_DUE_HOURS} hours. Issues seen only in their sessions are
        deleted; others keep the right counts. Copies of recordings elsewhere (backups) become unreadable.
      </p>
      {isOwner ? (
        <ErasureForm />
      ) : (
        <p className="alert alert-info" data-testid="erasure-owners-only">
          Only owners can erase a person’s data. Ask an owner of this organization.
        </p>
      )}
      {items.length === 0 ? (
        <p className="empty-state muted" data-testid="no-erasures">
          No erasures yet.
        </p>
      ) : (
        <table className="table" data-testid="erasures">
          <thead>
            <tr>
              <th scope="col">Requested</th>
              <th scope="col">Named by</th>
              <th scope="col">Status</th>
              <th scope="col">Removed</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.id}>
                <td>{utcTime(item.createdAt)}</td>
                <td>{PERSON_KIND_LABELS[item.personKind]}</td>
                <td>{requestStatus(item)}</td>
                <td>{countsText(item.counts)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
