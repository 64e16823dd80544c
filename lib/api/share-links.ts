import { actorOfPrincipal } from '@/lib/actor'
import { createShareLink, listShareLinks, revokeShareLink } from '@/lib/sharing/share-links'
import { type ApiRequest, bodyField } from './request'

type SessionParams = { sessionId: string }

/** POST /api/v1/sessions/{sessionId}/share-links with `{expiresInDays?, startAtMs?}` (answered 201) */
export async function createShareLinkRequest({ db, principal, params, body }: ApiRequest<SessionParams>) {
  return {
    shareLink: await createShareLink(db, actorOfPrincipal(principal), {
      sessionId: params.sessionId,
      expiresInDays: bodyField(body, 'expiresInDays'),
      startAtMs: bodyField(body, 'startAtMs'),
    }),
  }
}

/** GET /api/v1/sessions/{sessionId}/share-links: never the tokens */
export async function listShareLinksRequest({ db, principal, params }: ApiRequest<SessionParams>) {
  return { shareLinks: await listShareLinks(db, principal.organizationId, params.sessionId) }
}

/** DELETE /api/v1/share-links/{shareLinkId} */
export async function revokeShareLinkRequest({ db, principal, params }: ApiRequest<{ shareLinkId: string }>) {
  return { shareLink: await revokeShareLink(db, actorOfPrincipal(principal), params.shareLinkId) }
}
