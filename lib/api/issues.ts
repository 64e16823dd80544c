import { z } from 'zod'
import { ISSUE_STATUSES } from '@/db/schema'
import { actorOfPrincipal } from '@/lib/actor'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { getIssueDetailJson } from '@/lib/issues/issue-detail'
import { ISSUES_PAGE, listIssuesJson } from '@/lib/issues/list-issues'
import { parseResolution } from '@/lib/issues/resolution'
import { updateIssueStatus } from '@/lib/issues/update-issue-status'
import { JsonText } from './json-text'
import { parseCursor, parseIssueStatus, parseLimit } from './params'
import type { ApiRequest } from './request'

type IssueParams = { issueId: string }

/** The PATCH body, for the OpenAPI document; parsing uses parseIssueStatus for the spec's message. */
export const UpdateIssueBody = z.object({
  status: z.enum(ISSUE_STATUSES),
  inRelease: z.string().min(1).max(MAX_RELEASE_LENGTH).optional().meta({
    description:
      "Only with status resolved: the release that contains the fix, one of the organization's releases. Only sessions of it or a later release reopen the issue.",
  }),
  inNextRelease: z.boolean().optional().meta({
    description:
      'Only with status resolved, not with inRelease: the fix ships in the next release, the first one seen after now.',
  }),
})

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

/**
 * PATCH /api/v1/issues/{issueId} with `{status, inRelease?, inNextRelease?}` (a route declared
 * with `body: 'json'`). The status is read first, so a bad one answers the spec's message.
 */
export async function updateIssueRequest({ db, principal, params, body }: ApiRequest<IssueParams>) {
  const fields = (body && typeof body === 'object' ? body : {}) as {
    status?: unknown
    inRelease?: unknown
    inNextRelease?: unknown
  }
  const status = parseIssueStatus(fields.status)
  const resolution = parseResolution(status, fields)
  const issue = await updateIssueStatus(db, actorOfPrincipal(principal), {
    issueId: params.issueId,
    status,
    resolution,
  })
  return { issue }
}
