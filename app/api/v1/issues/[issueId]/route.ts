import { getIssueRequest, updateIssueRequest } from '@/lib/api/issues'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, getIssueRequest)
export const PATCH = dataApiRoute({ scope: 'write:issues', limit: 'write', body: 'json' }, updateIssueRequest)
