import { getRetentionRequest, setRetentionRequest } from '@/lib/api/retention'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, getRetentionRequest)
export const PATCH = dataApiRoute(
  { scope: 'write:privacy', limit: 'write', body: 'json' },
  setRetentionRequest,
)
