import { z } from 'zod'
import { parseCursor } from '@/lib/api/params'
import { SCOPES } from '@/lib/credentials/scopes'
import { ISSUES_PAGE, listIssues } from '@/lib/issues/list-issues'
import { IssueListItem } from '@/lib/issues/views'
import { cursorInput, issueStatus, limitInput, moreLine, nextCursorOutput, plural } from '../inputs'
import { issueLine } from '../text'
import { defineTool } from '../tool'
import { UNTRUSTED_TOOL_NOTE, untrustedMarkers } from '../untrusted'

/** GET /api/v1/issues as a tool. */
export const listIssuesTool = defineTool({
  name: 'list_issues',
  title: 'List issues',
  description: [
    "List the issues detected in your organization's recorded browser sessions (JavaScript",
    'errors, failed network requests, rage and dead clicks, AI-found problems), newest first.',
    'Filter by status; page with the returned nextCursor. Each issue has its id, title,',
    'status, priority and number of affected sessions; call get_issue for the description,',
    'steps to replicate and replay link of one issue.',
    UNTRUSTED_TOOL_NOTE,
  ].join(' '),
  inputSchema: z.object({
    limit: limitInput(ISSUES_PAGE),
    cursor: cursorInput,
    status: issueStatus.optional().describe('Only issues in this status'),
  }),
  outputSchema: z.object({ issues: z.array(IssueListItem), nextCursor: nextCursorOutput }),
  requiredScopes: [SCOPES.read],
  budget: 'read',
  annotations: {
    title: 'List issues',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async handler(input, { db, principal }) {
    const page = await listIssues(db, principal, {
      limit: input.limit,
      cursor: parseCursor(input.cursor ?? null),
      status: input.status,
    })
    const filter = input.status ? ` with status ${input.status}` : ''
    const untrusted = untrustedMarkers()
    const text = [
      `${plural(page.items.length, 'issue')}${filter}, newest first:`,
      untrusted.note,
      ...page.items.map((item) => issueLine(item, untrusted)),
      moreLine('list_issues', page.nextCursor),
    ]
    return { structured: { issues: page.items, nextCursor: page.nextCursor }, text: text.join('\n') }
  },
})
