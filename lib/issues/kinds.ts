import { FINDING_KINDS } from '@/lib/analysis/kinds'

/** The kinds of finding an issue can be about: session analysis's own list (insights use the same). */
export const ISSUE_KINDS = FINDING_KINDS
export type IssueKind = (typeof ISSUE_KINDS)[number]

/** How a kind reads in the dashboard: one word or two, singular. */
export const ISSUE_KIND_LABELS: Record<IssueKind, string> = {
  js_error: 'JavaScript error',
  console_error: 'Console error',
  network_error: 'Failed request',
  rage_click: 'Rage click',
  dead_click: 'Dead click',
}

export function issueKindLabel(kind: string): string {
  return (ISSUE_KIND_LABELS as Record<string, string>)[kind] ?? kind.replace(/_/g, ' ')
}
