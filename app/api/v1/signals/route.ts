import { listSignalsRequest } from '@/lib/api/lists'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, listSignalsRequest)
