import { getIssueReproductionRequest } from '@/lib/api/reproduction'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, getIssueReproductionRequest)
