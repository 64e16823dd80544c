import { listReleasesRequest, uploadSourcemapsRequest } from '@/lib/api/sourcemaps'
import { dataApiRoute } from '@/lib/http/data-api'
import { REQUEST_TOO_LARGE, SOURCEMAP_LIMITS } from '@/lib/sourcemaps/limits'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, listReleasesRequest)
export const POST = dataApiRoute(
  {
    scope: 'write:sourcemaps',
    limit: 'write',
    body: 'form',
    // Compressed or not, the body never decodes past the request's limit.
    bodyLimits: {
      maxWireBytes: SOURCEMAP_LIMITS.maxRequestBytes,
      maxDecodedBytes: SOURCEMAP_LIMITS.maxRequestBytes,
      tooLargeMessage: REQUEST_TOO_LARGE,
    },
    status: 201,
  },
  uploadSourcemapsRequest,
)
