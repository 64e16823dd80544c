import { getRemaskingRequest } from '@/lib/api/remaskings'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'write:privacy', limit: 'read' }, getRemaskingRequest)
