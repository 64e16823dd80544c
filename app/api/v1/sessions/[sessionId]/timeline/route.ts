import { sessionTimelineRequest } from '@/lib/api/sessions'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, sessionTimelineRequest)
