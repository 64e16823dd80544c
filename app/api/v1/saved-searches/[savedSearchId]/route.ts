import {
  deleteSavedSearchRequest,
  getSavedSearchRequest,
  updateSavedSearchRequest,
} from '@/lib/api/saved-searches'
import { dataApiRoute } from '@/lib/http/data-api'

export const GET = dataApiRoute({ scope: 'read:service', limit: 'read' }, getSavedSearchRequest)
export const PATCH = dataApiRoute(
  { scope: 'write:issues', limit: 'write', body: 'json' },
  updateSavedSearchRequest,
)
export const DELETE = dataApiRoute({ scope: 'write:issues', limit: 'write' }, deleteSavedSearchRequest)
