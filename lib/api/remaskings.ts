import { actorOfPrincipal } from '@/lib/actor'
import { getRemasking, requestRemasking } from '@/lib/privacy/remaskings'
import { type ApiRequest, bodyField } from './request'

type RemaskingParams = { remaskingId: string }

/** POST /api/v1/remaskings with `{selectors?, patterns?, from?, to?, updateRecorder?}` (answered 202) */
export async function requestRemaskingRequest({ db, principal, body }: ApiRequest<Record<string, never>>) {
  const remasking = await requestRemasking(db, actorOfPrincipal(principal), {
    selectors: bodyField(body, 'selectors'),
    patterns: bodyField(body, 'patterns'),
    from: bodyField(body, 'from'),
    to: bodyField(body, 'to'),
    updateRecorder: bodyField(body, 'updateRecorder'),
  })
  return { remasking }
}

/** GET /api/v1/remaskings/{remaskingId}: status and counts */
export async function getRemaskingRequest({ db, principal, params }: ApiRequest<RemaskingParams>) {
  return { remasking: await getRemasking(db, principal.organizationId, params.remaskingId) }
}
