import type { DbOrTx } from '@/db/client'
import type { issues } from '@/db/schema'
import type { Principal } from '@/lib/credentials/resolve-bearer'
import { listVerifications } from '@/lib/releases/verifications'
import { getIssueJson, getIssueRow } from './get-issue'
import { type IssueDetail, toIssue } from './views'

/** IssueDetail of an issue row already read for the caller's organization (get_issue). */
export async function toIssueDetail(db: DbOrTx, row: typeof issues.$inferSelect): Promise<IssueDetail> {
  return { ...toIssue(row), verifications: await listVerifications(db, row.organizationId, row.id) }
}

/**
 * IssueDetail as the JSON text JSON.stringify would make of it: the issue's text from the
 * database (getIssueJson, which answers 404 first), then what the detail adds, last, as
 * IssueDetail orders it.
 */
export async function getIssueDetailJson(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  issueId: string,
): Promise<string> {
  const json = await getIssueJson(db, principal, issueId)
  const verifications = await listVerifications(db, principal.organizationId, issueId)
  return `${json.slice(0, -1)},"verifications":${JSON.stringify(verifications)}}`
}

/** IssueDetail as objects: what getIssueDetailJson writes as text. */
export async function getIssueDetail(
  db: DbOrTx,
  principal: Pick<Principal, 'organizationId'>,
  issueId: string,
): Promise<IssueDetail> {
  return toIssueDetail(db, await getIssueRow(db, principal.organizationId, issueId))
}
