import { getIssueReproduction } from '@/lib/reproduction/get-reproduction'
import type { ApiRequest } from './request'

/** GET /api/v1/issues/{issueId}/reproduction */
export async function getIssueReproductionRequest({
  db,
  principal,
  params,
}: ApiRequest<{ issueId: string }>) {
  return { reproduction: await getIssueReproduction(db, principal, params.issueId) }
}
