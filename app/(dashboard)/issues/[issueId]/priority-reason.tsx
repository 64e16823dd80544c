import type { IssuePriority } from '@/db/schema'
import styles from './priority-reason.module.css'

/**
 * Why the issue got its priority (issue 15), under its badge: the base for its kind, each
 * step up or down, and what the user did next. Issues recorded before reasons existed show
 * nothing rather than a guess.
 */
export function PriorityReason({ priority, reason }: { priority: IssuePriority; reason: string | null }) {
  if (!reason) return null
  return (
    <p className={styles.reason} data-testid="priority-reason">
      <span className="muted">Why {priority}:</span> {reason}
    </p>
  )
}
