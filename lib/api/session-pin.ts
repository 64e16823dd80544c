import { actorOfPrincipal } from '@/lib/actor'
import { setSessionPin } from '@/lib/sessions/pin-session'
import type { ApiRequest } from './request'

type SessionParams = { sessionId: string }

/** PUT /api/v1/sessions/{sessionId}/pin */
export async function pinSessionRequest({ db, principal, params }: ApiRequest<SessionParams>) {
  return {
    pin: await setSessionPin(db, actorOfPrincipal(principal), { sessionId: params.sessionId, pinned: true }),
  }
}

/** DELETE /api/v1/sessions/{sessionId}/pin */
export async function unpinSessionRequest({ db, principal, params }: ApiRequest<SessionParams>) {
  return {
    pin: await setSessionPin(db, actorOfPrincipal(principal), { sessionId: params.sessionId, pinned: false }),
  }
}
