import { z } from 'zod'
import { ISSUE_STATUSES } from '@/db/schema'
import { actorOfPrincipal } from '@/lib/actor'
import { getIssueDetailJson } from '@/lib/issues/issue-detail'
import { ISSUES_PAGE, listIssuesJson } from '@/lib/issues/list-issues'
import { updateIssueStatus } from '@/lib/issues/update-issue-status'
import { JsonText } from './json-text'
import { parseCursor, parseIssueStatus, parseLimit } from './params'
import type { ApiRequest } from './request'

type IssueParams = { issueId: string }

/** The PATCH body, for the OpenAPI document; parsing uses parseIssueStatus for the spec's message. */
export const UpdateIssueBody = z.object({ status: z.enum(ISSUE_STATUSES) })

/** GET /api/v1/issues */
export async function listIssuesRequest({ db, principal, query }: ApiRequest<unknown>) {
  const status = query.get('status')
  const page = await listIssuesJson(db, principal, {
    limit: parseLimit(query.get('limit'), ISSUES_PAGE),
    cursor: parseCursor(query.get('cursor')),
    status: status === null ? undefined : parseIssueStatus(status),
  })
  // JSON.stringify({ issues, nextCursor }), with the items already JSON.
  return new JsonText(`{"issues":[${page.items}],"nextCursor":${JSON.stringify(page.nextCursor)}}`)
}

/** GET /api/v1/issues/{issueId}: the IssueDetail */
export async function getIssueRequest({ db, principal, params }: ApiRequest<IssueParams>) {
  return new JsonText(`{"issue":${await getIssueDetailJson(db, principal, params.issueId)}}`)
}

/** PATCH /api/v1/issues/{issueId} with `{status}` (a route declared with `body: 'json'`) */
export async function updateIssueRequest({ db, principal, params, body }: ApiRequest<IssueParams>) {
  const status = parseIssueStatus(
    body && typeof body === 'object' ? (body as { status?: unknown }).status : undefined,
  )
  const issue = await updateIssueStatus(db, actorOfPrincipal(principal), { issueId: params.issueId, status })
  return { issue }
}
