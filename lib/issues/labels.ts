import type { IssueStatus } from './statuses'

/**
 * How statuses read to people (the Data API keeps the enum values): named after what the
 * dashboard's buttons do, so "Ignore" leaves an issue "Ignored" and a linked ticket leaves it
 * "In a ticket".
 */
// Client-safe: the status forms import these, so nothing here reaches the database schema.
export const ISSUE_STATUS_LABELS: Record<IssueStatus, string> = {
  unresolved: 'Unresolved',
  ticket_created: 'In a ticket',
  transient: 'Ignored',
  resolved: 'Resolved',
}

/** One line each, for the status control: what choosing a status tells the team. */
export const ISSUE_STATUS_HINTS: Record<IssueStatus, string> = {
  unresolved: 'Needs attention.',
  ticket_created: 'Tracked in a ticket: creating or linking one under Ticket sets it.',
  transient: 'A passing problem (an outage, a deploy) that needs no fix.',
  resolved: 'Fixed. It reopens if a later session shows it again.',
}

/**
 * The status control's two ways of resolving that name the fix's release
 * (docs/releases.md#resolve-in-a-release), beside the plain statuses.
 */
export const RESOLVE_IN_RELEASE = 'resolved:release'
export const RESOLVE_IN_NEXT_RELEASE = 'resolved:next'
export const RESOLVE_CHOICE_LABELS = {
  [RESOLVE_IN_RELEASE]: 'Resolved in release…',
  [RESOLVE_IN_NEXT_RELEASE]: 'Resolved in the next release',
} as const
export const RESOLVE_CHOICE_HINTS = {
  [RESOLVE_IN_RELEASE]: 'Fixed in that release: only sessions of it or a later release reopen it.',
  [RESOLVE_IN_NEXT_RELEASE]:
    'The fix ships in the next release: only sessions of the first release seen from now on, or later ones, reopen it.',
} as const

/** The statuses in the order the dashboard offers them (the schema's order). */
export const ISSUE_STATUS_CHOICES = Object.keys(ISSUE_STATUS_LABELS) as IssueStatus[]

/** "Unresolved, In a ticket, Ignored or Resolved": the choices as a sentence names them. */
export const ISSUE_STATUS_LIST = `${ISSUE_STATUS_CHOICES.slice(0, -1)
  .map((s) => ISSUE_STATUS_LABELS[s])
  .join(', ')} or ${ISSUE_STATUS_LABELS.resolved}`
