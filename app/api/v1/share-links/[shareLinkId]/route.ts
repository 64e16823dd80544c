import { revokeShareLinkRequest } from '@/lib/api/share-links'
import { dataApiRoute } from '@/lib/http/data-api'

export const DELETE = dataApiRoute<{ shareLinkId: string }>(
  { scope: 'write:issues', limit: 'write' },
  revokeShareLinkRequest,
)
