import { z } from 'zod'
import { actorOfPrincipal } from '@/lib/actor'
import { linkTicket } from '@/lib/issues/link-ticket'
import { type ApiRequest, bodyField } from './request'

/** The request body, for the OpenAPI document; parsing is linkTicket's own (TicketInput). */
export const LinkTicketBody = z.object({
  provider: z.string(),
  url: z.string(),
  identifier: z.string().nullable().optional(),
})

/**
 * PUT /api/v1/issues/{issueId}/ticket with `{provider, url, identifier?}`: the dashboard's
 * ticket link, so the same status change, history and `issue.status_changed` event follow.
 */
export async function linkTicketRequest({ db, principal, params, body }: ApiRequest<{ issueId: string }>) {
  const identifier = bodyField(body, 'identifier')
  const issue = await linkTicket(db, actorOfPrincipal(principal), {
    issueId: params.issueId,
    provider: bodyField(body, 'provider'),
    url: bodyField(body, 'url'),
    // null, as GET answers an issue without one, means "no identifier" here too.
    identifier: identifier === null ? undefined : identifier,
  })
  return { issue }
}
