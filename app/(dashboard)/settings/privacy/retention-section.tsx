import { getDb } from '@/lib/db'
import type { MemberContext } from '@/lib/http/session'
import { PINNED_SESSION_MAX_DAYS } from '@/lib/retention/pinned'
import { getOrganizationRetention, RETENTION_DAYS } from '@/lib/retention/set-retention'
import { RetentionForm } from './retention-form'

/** How long recordings are kept and how long a pin keeps one: every member sees it, owners change it. */
export async function RetentionSection({ member }: { member: MemberContext }) {
  const retention = await getOrganizationRetention(await getDb(), member.organization.id)
  return (
    <section className="card" aria-labelledby="retention-heading" data-testid="retention-section">
      <h2 id="retention-heading">Retention</h2>
      <p>
        Recordings are kept for <strong data-testid="retention-days">{retention.retentionDays} days</strong>{' '}
        from the start of each session, then deleted with their timelines and links. A pinned session (Pin on
        its page) is kept up to {PINNED_SESSION_MAX_DAYS} days from its start, or the retention if that is
        longer ({retention.pinnedMaxDays} days now). Issues keep their counts.
      </p>
      {member.organization.role === 'owner' ? (
        <RetentionForm days={retention.retentionDays} min={RETENTION_DAYS.min} max={RETENTION_DAYS.max} />
      ) : (
        <p className="muted">Only organization owners can change how long recordings are kept.</p>
      )}
    </section>
  )
}
