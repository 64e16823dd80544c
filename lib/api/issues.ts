import { z } from 'zod'
import { ISSUE_STATUSES } from '@/db/schema'
import { parseJson, readBody } from '@/lib/http/body'
import type { DataApiContext } from '@/lib/http/data-api'
import { getIssue } from '@/lib/issues/get-issue'
import { ISSUES_PAGE, listIssues } from '@/lib/issues/list-issues'
import { updateIssueStatus } from '@/lib/issues/update-issue-status'
import { parseCursor, parseIssueStatus, parseLimit } from './params'

type IssueParams = { issueId: string }

const PATCH_BODY_LIMITS = {
  maxWireBytes: 64 * 1024,
  maxDecodedBytes: 64 * 1024,
  tooLargeMessage: 'Request body too large: at most 64 KiB',
}

/** The PATCH body, for the OpenAPI document; parsing uses parseIssueStatus for the spec's message. */
export const UpdateIssueBody = z.object({ status: z.enum(ISSUE_STATUSES) })

/** GET /api/v1/issues */
export async function listIssuesRequest({ db, principal, url }: DataApiContext<unknown>) {
  const status = url.searchParams.get('status')
  const page = await listIssues(db, principal, {
    limit: parseLimit(url.searchParams.get('limit'), ISSUES_PAGE),
    cursor: parseCursor(url.searchParams.get('cursor')),
    status: status === null ? undefined : parseIssueStatus(status),
  })
  return { issues: page.items, nextCursor: page.nextCursor }
}

/** GET /api/v1/issues/{issueId} */
export async function getIssueRequest({ db, principal, params }: DataApiContext<IssueParams>) {
  return { issue: await getIssue(db, principal, params.issueId) }
}

/** PATCH /api/v1/issues/{issueId} with `{status}` */
export async function updateIssueRequest({ db, principal, params, req }: DataApiContext<IssueParams>) {
  const body = parseJson(await readBody(req, PATCH_BODY_LIMITS), 'Request body must be valid JSON')
  const status = parseIssueStatus(
    body && typeof body === 'object' ? (body as { status?: unknown }).status : undefined,
  )
  const issue = await updateIssueStatus(
    db,
    {
      organizationId: principal.organizationId,
      actorType: principal.kind === 'oauth' ? 'oauth_client' : 'credential',
      actorId:
        principal.kind === 'oauth' ? (principal.clientId ?? principal.credentialId) : principal.credentialId,
    },
    { issueId: params.issueId, status },
  )
  return { issue }
}
