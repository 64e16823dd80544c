import { listErasuresRequest, requestErasureRequest } from '@/lib/api/erasures'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'write:privacy', limit: 'read' }, listErasuresRequest)
export const POST = dataApiRoute(
  { scope: 'write:privacy', limit: 'write', body: 'json', status: 202 },
  requestErasureRequest,
)
