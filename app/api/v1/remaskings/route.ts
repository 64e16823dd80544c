import { requestRemaskingRequest } from '@/lib/api/remaskings'
import { dataApiRoute } from '@/lib/http/data-api'

export const POST = dataApiRoute(
  { scope: 'write:privacy', limit: 'write', body: 'json', status: 202 },
  requestRemaskingRequest,
)
