import { listIssuesRequest } from '@/lib/api/issues'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, listIssuesRequest)
