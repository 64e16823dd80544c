import { z } from 'zod'
import {
  createSavedSearch,
  deleteSavedSearch,
  getSavedSearch,
  listSavedSearches,
  SAVED_SEARCHES_PAGE,
  updateSavedSearch,
} from '@/lib/saved-searches/saved-searches'
import { parseCursor, parseLimit } from './params'
import { type ApiRequest, bodyField } from './request'

type SavedSearchParams = { savedSearchId: string }

const Query = z
  .string()
  .min(1)
  .max(1000)
  .meta({ description: 'A query in the search language (docs/search.md)' })
const Name = z.string().min(1).max(100).meta({ description: 'Unique in the organization, in any case' })

/** The bodies, for the OpenAPI document; the domain checks them with its own messages. */
export const CreateSavedSearchBody = z.object({ name: Name, query: Query })
export const UpdateSavedSearchBody = z.object({ name: Name.optional(), query: Query.optional() })

/** GET /api/v1/saved-searches */
export async function listSavedSearchesRequest({ db, principal, query }: ApiRequest<Record<string, never>>) {
  const page = await listSavedSearches(db, principal.organizationId, {
    limit: parseLimit(query.get('limit'), SAVED_SEARCHES_PAGE),
    cursor: parseCursor(query.get('cursor')),
  })
  return { savedSearches: page.items, nextCursor: page.nextCursor }
}

/** POST /api/v1/saved-searches with `{name, query}` (answered 201) */
export async function createSavedSearchRequest({ db, principal, body }: ApiRequest<Record<string, never>>) {
  const savedSearch = await createSavedSearch(
    db,
    { organizationId: principal.organizationId, userId: null },
    { name: bodyField(body, 'name'), query: bodyField(body, 'query') },
  )
  return { savedSearch }
}

/** GET /api/v1/saved-searches/{savedSearchId} */
export async function getSavedSearchRequest({ db, principal, params }: ApiRequest<SavedSearchParams>) {
  return { savedSearch: await getSavedSearch(db, principal.organizationId, params.savedSearchId) }
}

/** PATCH /api/v1/saved-searches/{savedSearchId} with `{name?, query?}` */
export async function updateSavedSearchRequest({
  db,
  principal,
  params,
  body,
}: ApiRequest<SavedSearchParams>) {
  const savedSearch = await updateSavedSearch(db, principal.organizationId, params.savedSearchId, {
    name: bodyField(body, 'name'),
    query: bodyField(body, 'query'),
  })
  return { savedSearch }
}

/** DELETE /api/v1/saved-searches/{savedSearchId}: 409 while a signal or an alert rule uses it */
export async function deleteSavedSearchRequest({ db, principal, params }: ApiRequest<SavedSearchParams>) {
  await deleteSavedSearch(db, principal.organizationId, params.savedSearchId)
  return { deleted: true }
}
