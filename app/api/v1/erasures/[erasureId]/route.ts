import { getErasureRequest } from '@/lib/api/erasures'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'write:privacy', limit: 'read' }, getErasureRequest)
