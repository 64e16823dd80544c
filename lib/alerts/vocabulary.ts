import type { AlertTrigger } from '@/db/schema'
import { issueKindLabel } from '@/lib/issues/kinds'
import { ISSUE_PRIORITIES } from '@/lib/issues/priorities'

// Type-only schema imports: the rule form (a client component) uses these without bundling the
// database schema.

/** What each trigger means, as the rule form and list name it. */
export const ALERT_TRIGGER_LABELS: Record<AlertTrigger, string> = {
  issue_created: 'A new issue',
  issue_regressed: 'A resolved issue regresses',
  issue_spiking: 'An issue spikes (insights)',
  signal_matched: 'A signal matches a session',
}
export const ALERT_TRIGGER_CHOICES = Object.keys(ALERT_TRIGGER_LABELS) as AlertTrigger[]

/** The priorities in the schema's order, highest first. */
export const ALERT_PRIORITY_CHOICES = ISSUE_PRIORITIES

/**
 * A rule's filters as one line: "priority critical or high, kind Failed request, URL contains …,
 * saved search “…”"; `savedSearchNames` names the organization's saved searches by id.
 */
export function alertFiltersText(
  filters: { priorities?: string[]; kinds?: string[]; urlContains?: string; savedSearchId?: string },
  savedSearchNames: ReadonlyMap<string, string> = new Map(),
) {
  const parts = [
    filters.priorities?.length ? `priority ${filters.priorities.join(' or ')}` : null,
    filters.kinds?.length ? `kind ${filters.kinds.map(issueKindLabel).join(' or ')}` : null,
    filters.urlContains ? `URL contains “${filters.urlContains}”` : null,
    filters.savedSearchId
      ? `saved search “${savedSearchNames.get(filters.savedSearchId) ?? filters.savedSearchId}”`
      : null,
  ].filter(Boolean)
  return parts.length ? parts.join(', ') : 'no filters'
}
