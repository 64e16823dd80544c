import { Issue } from '@/lib/issues/views'

/**
 * The issue of GET /api/v1/issues/{issueId} without what only the single read adds (issue 36:
 * IssueDetail), to compare with the answers of writes (PATCH, tickets, update_issue), which
 * answer the issue itself. Keys come from the Issue schema, so fields added to the detail later
 * are left out too.
 */
export function issueOnly(detail: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(detail).filter(([key]) => key in Issue.shape))
}
