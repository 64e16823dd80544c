import { getReleaseHealthRequest } from '@/lib/api/releases'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, getReleaseHealthRequest)
