import { declareReleaseRequest, listReleasesHealthRequest } from '@/lib/api/releases'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, listReleasesHealthRequest)
export const POST = dataApiRoute(
  { scope: 'write:sourcemaps', limit: 'write', body: 'json' },
  declareReleaseRequest,
)
