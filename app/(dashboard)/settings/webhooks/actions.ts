'use server'

import { revalidatePath } from 'next/cache'
import { ownerAction, type ActionResult as Result } from '@/lib/http/actions'
import { getRateLimiter } from '@/lib/ratelimit'
import { formText, formTexts, textArgument } from '@/lib/validation'
import { createEndpoint, revokeEndpoint } from '@/lib/webhooks/endpoints'
import { isWebhookEvent } from '@/lib/webhooks/events'
import { getDeliverer } from '@/lib/webhooks/runtime'
import { sendTestEvent } from '@/lib/webhooks/send-test'

export type CreateResult = Result<{ secret: string; name: string }>
export type ActionResult = Result

const PATH = '/settings/webhooks'
const OWNERS_ONLY = 'manage webhooks'

export const createWebhookAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: 'create the webhook' },
  async ({ db, user, organization }, _prev: CreateResult | null, form: FormData): Promise<CreateResult> => {
    const created = await createEndpoint(db, {
      organizationId: organization.id,
      name: formText(form, 'name'),
      url: formText(form, 'url'),
      events: formTexts(form, 'events'),
      createdByUserId: user.id,
    })
    revalidatePath(PATH)
    return { ok: true, secret: created.secret, name: created.name }
  },
)

export const revokeWebhookAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: 'revoke the webhook' },
  async ({ db, organization }, endpointId: string): Promise<ActionResult> => {
    await revokeEndpoint(db, { id: textArgument(endpointId), organizationId: organization.id })
    revalidatePath(PATH)
    return { ok: true, message: 'Revoked. Pending deliveries were cancelled.' }
  },
)

export const sendTestWebhookAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: 'send the test event' },
  async ({ db, organization }, endpointId: string, event: string): Promise<ActionResult> => {
    const eventName = textArgument(event)
    if (!isWebhookEvent(eventName)) return { ok: false, error: `Unknown event type: ${eventName}` }
    const outcome = await sendTestEvent(db, getDeliverer(), getRateLimiter(), {
      organizationId: organization.id,
      endpointId: textArgument(endpointId),
      event: eventName,
    })
    revalidatePath(PATH)
    return outcome.ok
      ? { ok: true, message: `Delivered: HTTP ${outcome.status} in ${outcome.durationMs} ms.` }
      : { ok: false, error: `Not delivered: ${outcome.label} after ${outcome.durationMs} ms.` }
  },
)
