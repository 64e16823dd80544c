import type { Db } from '@/db/client'
import type { Deliverer } from '@/lib/webhooks/deliver'
import { deliverDue } from '@/lib/webhooks/sweep'
import { deliverDueSlack } from './deliver-slack'
import type { QueuedDeliveries } from './queue-delivery'

/** The first attempt of freshly queued alert deliveries, as the webhook fan-out makes its own. */
export async function firstAttempts(
  db: Db,
  deliverer: Deliverer,
  queued: QueuedDeliveries,
  delays: readonly number[],
): Promise<number> {
  const [slack, webhook] = await Promise.all([
    deliverDueSlack(db, { delays, ids: queued.slack }),
    queued.webhook.length > 0 ? deliverDue(db, deliverer, { delays, ids: queued.webhook }) : 0,
  ])
  return slack + webhook
}
