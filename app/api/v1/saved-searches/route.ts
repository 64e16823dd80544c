import { createSavedSearchRequest, listSavedSearchesRequest } from '@/lib/api/saved-searches'
import { dataApiRoute } from '@/lib/http/data-api'

// Reading needs what reading sessions needs; changing needs a key that may change things
// (docs/saved-searches.md#data-api).
export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, listSavedSearchesRequest)
export const POST = dataApiRoute(
  { scope: 'write:issues', limit: 'write', body: 'json', status: 201 },
  createSavedSearchRequest,
)
