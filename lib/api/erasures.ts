import { actorOfPrincipal } from '@/lib/actor'
import { ERASURES_PAGE, getErasure, listErasures, requestErasure } from '@/lib/privacy/erasures'
import { parsePersonBody } from '@/lib/privacy/person-body'
import { parseCursor, parseLimit } from './params'
import type { ApiRequest } from './request'

type ErasureParams = { erasureId: string }

/** POST /api/v1/erasures with `{userId}`, `{email}` or `{anonymousId}` (answered 202) */
export async function requestErasureRequest({ db, principal, body }: ApiRequest<Record<string, never>>) {
  const person = parsePersonBody(body)
  return { erasure: await requestErasure(db, actorOfPrincipal(principal), person) }
}

/** GET /api/v1/erasures/{erasureId}: progress and counts */
export async function getErasureRequest({ db, principal, params }: ApiRequest<ErasureParams>) {
  return { erasure: await getErasure(db, principal.organizationId, params.erasureId) }
}

/** GET /api/v1/erasures */
export async function listErasuresRequest({ db, principal, query }: ApiRequest<Record<string, never>>) {
  const page = await listErasures(db, principal.organizationId, {
    limit: parseLimit(query.get('limit'), ERASURES_PAGE),
    cursor: parseCursor(query.get('cursor')),
  })
  return { erasures: page.items, nextCursor: page.nextCursor }
}
