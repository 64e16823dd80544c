'use server'

import { revalidatePath } from 'next/cache'
import { getDb } from '@/lib/db'
import { actionFailure, actionOwner } from '@/lib/http/actions'
import { getRateLimiter } from '@/lib/ratelimit'
import { formText, formTexts, textArgument } from '@/lib/validation'
import { createEndpoint, revokeEndpoint } from '@/lib/webhooks/endpoints'
import { isWebhookEvent } from '@/lib/webhooks/events'
import { getDeliverer } from '@/lib/webhooks/runtime'
import { sendTestEvent } from '@/lib/webhooks/send-test'

export type CreateResult = { ok: true; secret: string; name: string } | { ok: false; error: string }
export type ActionResult = { ok: true; message: string } | { ok: false; error: string }

const PATH = '/settings/webhooks'

const requireOwner = () => actionOwner('manage webhooks')

export async function createWebhookAction(_prev: CreateResult | null, form: FormData): Promise<CreateResult> {
  const owner = await requireOwner()
  if (!owner.ok) return owner
  const name = formText(form, 'name')
  const url = formText(form, 'url')
  try {
    const created = await createEndpoint(await getDb(), {
      organizationId: owner.organization.id,
      name,
      url,
      events: formTexts(form, 'events'),
      createdByUserId: owner.user.id,
    })
    revalidatePath(PATH)
    return { ok: true, secret: created.secret, name: created.name }
  } catch (error) {
    return actionFailure(error, 'create the webhook')
  }
}

export async function revokeWebhookAction(endpointId: string): Promise<ActionResult> {
  const owner = await requireOwner()
  if (!owner.ok) return owner
  try {
    await revokeEndpoint(await getDb(), {
      id: textArgument(endpointId),
      organizationId: owner.organization.id,
    })
    revalidatePath(PATH)
    return { ok: true, message: 'Revoked. Pending deliveries were cancelled.' }
  } catch (error) {
    return actionFailure(error, 'revoke the webhook')
  }
}

export async function sendTestWebhookAction(endpointId: string, event: string): Promise<ActionResult> {
  const owner = await requireOwner()
  if (!owner.ok) return owner
  const eventName = textArgument(event)
  if (!isWebhookEvent(eventName)) return { ok: false, error: `Unknown event type: ${eventName}` }
  try {
    const outcome = await sendTestEvent(await getDb(), getDeliverer(), getRateLimiter(), {
      organizationId: owner.organization.id,
      endpointId: textArgument(endpointId),
      event: eventName,
    })
    revalidatePath(PATH)
    return outcome.ok
      ? { ok: true, message: `Delivered: HTTP ${outcome.status} in ${outcome.durationMs} ms.` }
      : { ok: false, error: `Not delivered: ${outcome.label} after ${outcome.durationMs} ms.` }
  } catch (error) {
    return actionFailure(error, 'send the test event')
  }
}
