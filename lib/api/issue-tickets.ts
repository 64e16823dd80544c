import { z } from 'zod'
import { actorOfPrincipal } from '@/lib/actor'
import { createTicket } from '@/lib/integrations/create-ticket'
import { type ApiRequest, bodyField } from './request'

/** The request body, for the OpenAPI document; parsing is createTicket's own (TicketProvider). */
export const CreateTicketBody = z.object({ provider: z.enum(['linear', 'github']) })

/**
 * POST /api/v1/issues/{issueId}/tickets with `{provider}`: creates the tracker issue through the
 * organization's integration and links it, as the issue page's "Create … issue" button does.
 */
export async function createTicketRequest({ db, principal, params, body }: ApiRequest<{ issueId: string }>) {
  const issue = await createTicket(db, actorOfPrincipal(principal), {
    issueId: params.issueId,
    provider: bodyField(body, 'provider'),
  })
  return { issue }
}
