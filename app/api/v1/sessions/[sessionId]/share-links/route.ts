import { createShareLinkRequest, listShareLinksRequest } from '@/lib/api/share-links'
import { dataApiRoute } from '@/lib/http/data-api'

// Listing reads like any session read. Creating a link publishes a replay to whoever holds it,
// so it takes the write scope members use to work on issues (pinning takes it too):
// docs/sharing.md#scopes.
export const GET = dataApiRoute<{ sessionId: string }>(
  { scope: 'read:service', limit: 'read' },
  listShareLinksRequest,
)
export const POST = dataApiRoute<{ sessionId: string }>(
  { scope: 'write:issues', limit: 'write', body: 'json', status: 201 },
  createShareLinkRequest,
)
