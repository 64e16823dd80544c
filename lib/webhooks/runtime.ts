import { getConfig } from '@/lib/config'
import { logger } from '@/lib/log'
import { createDeliverer, type Deliverer } from './deliver'

/**
 * The app's deliverer, built from configuration on first use. Kept on globalThis like the
 * database, so tests (and the bench) can swap in one with a test CA, a fake resolver and a
 * short timeout.
 */
const holder = globalThis as typeof globalThis & { __serviceDeliverer?: Deliverer }

export function getDeliverer(): Deliverer {
  if (!holder.__serviceDeliverer) {
    const { allowPrivateTargets } = getConfig().webhooks
    if (allowPrivateTargets)
      logger.warn(
        'WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhook deliveries may reach loopback and private addresses. Never set it in a deployment.',
      )
    holder.__serviceDeliverer = createDeliverer({ allowPrivate: allowPrivateTargets })
  }
  return holder.__serviceDeliverer
}

export function useDeliverer(deliverer: Deliverer | undefined): void {
  holder.__serviceDeliverer = deliverer
}
