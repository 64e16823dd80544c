import { actorOfPrincipal } from '@/lib/actor'
import { InvalidInputError } from '@/lib/errors'
import {
  getOrganizationRetention,
  RETENTION_DAYS,
  setOrganizationRetention,
} from '@/lib/retention/set-retention'
import { type ApiRequest, bodyField } from './request'

export const INVALID_DAYS = `days must be a whole number from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}`

/** GET /api/v1/retention */
export async function getRetentionRequest({ db, principal }: ApiRequest<Record<string, never>>) {
  return { retention: await getOrganizationRetention(db, principal.organizationId) }
}

/** PATCH /api/v1/retention with `{days}` (a JSON number) */
export async function setRetentionRequest({ db, principal, body }: ApiRequest<Record<string, never>>) {
  const days = bodyField(body, 'days')
  if (typeof days !== 'number') throw new InvalidInputError(INVALID_DAYS)
  const retention = await setOrganizationRetention(db, actorOfPrincipal(principal), {
    organizationId: principal.organizationId,
    days,
  })
  return { retention }
}
