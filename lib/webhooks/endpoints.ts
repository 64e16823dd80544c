import { and, count, desc, eq, gt, isNull, min, sql } from 'drizzle-orm'
import type { Db, DbOrTx } from '@/db/client'
import { organizations, webhookDeliveries, webhookEndpoints } from '@/db/schema'
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  isUuid,
  NotFoundError,
  RateLimitedError,
} from '@/lib/errors'
import { isStorableText, NOT_STORABLE } from '@/lib/validation'
import { isWebhookEvent, type WebhookEvent } from './events'
import { encryptSecret, generateWebhookSecret, secretPrefix } from './secrets'
import { checkUrlShape, UnsafeUrlError } from './url-guard'

export const MAX_ACTIVE_ENDPOINTS = 3
export const MAX_CREATIONS_PER_HOUR = 5
export const NAME_MAX = 64
export const URL_MAX = 2048
export const PAID_PLAN_MESSAGE =
  'Webhooks are available on the paid plan. An instance operator changes the plan under Settings → Organization, or with the admin command org:plan.'
/** Without --events (CLI) the one event the spec delivers today. */
export const DEFAULT_EVENTS: WebhookEvent[] = ['issue.created']

export interface CreateEndpointInput {
  organizationId: string
  name: string
  url: string
  events?: readonly string[]
  createdByUserId?: string | null
}

export interface CreatedEndpoint {
  id: string
  name: string
  url: string
  events: WebhookEvent[]
  /** The only time the full secret is returned. */
  secret: string
  secretPrefix: string
}

function validate(input: CreateEndpointInput): { name: string; url: string; events: WebhookEvent[] } {
  if (!isStorableText(input.name)) throw new InvalidInputError(`Webhook name ${NOT_STORABLE}`)
  if (!isStorableText(input.url)) throw new InvalidInputError(`Webhook URL ${NOT_STORABLE}`)
  const name = input.name.trim()
  if (name === '') throw new InvalidInputError('Name is required.')
  if (name.length > NAME_MAX) throw new InvalidInputError(`Name must be at most ${NAME_MAX} characters.`)
  const url = input.url.trim()
  if (url.length > URL_MAX) throw new InvalidInputError(`URL must be at most ${URL_MAX} characters.`)
  try {
    checkUrlShape(url)
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw new InvalidInputError(`URL refused: ${error.message}.`)
    throw error
  }
  const events = [...new Set(input.events ?? DEFAULT_EVENTS)]
  if (events.length === 0) throw new InvalidInputError('Choose at least one event.')
  const unknown = events.filter((e) => !isWebhookEvent(e))
  if (unknown.length > 0) throw new InvalidInputError(`Unknown event type: ${unknown.join(', ')}`)
  return { name, url, events: events as WebhookEvent[] }
}

/** Refuses free organizations; shared by creation and Send test. */
export async function requirePaidPlan(db: DbOrTx, organizationId: string, lock = false): Promise<void> {
  if (!isUuid(organizationId)) throw new NotFoundError(`Organization not found: ${organizationId}`)
  const query = db
    .select({ plan: organizations.plan })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
  const [org] = lock ? await query.for('update') : await query
  if (!org) throw new NotFoundError(`Organization not found: ${organizationId}`)
  if (org.plan !== 'paid') throw new ForbiddenError(PAID_PLAN_MESSAGE)
}

/**
 * Creates an endpoint. The caps are checked under a lock on the organization row, so two
 * concurrent creations cannot both take the last slot; the hourly count reads the rows
 * themselves (revoked ones included), so it survives restarts and cannot be reset by revoking.
 */
export async function createEndpoint(db: Db, input: CreateEndpointInput): Promise<CreatedEndpoint> {
  const clean = validate(input)
  const secret = generateWebhookSecret()
  return db.transaction(async (tx) => {
    await requirePaidPlan(tx, input.organizationId, true)
    const [active] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(
        and(eq(webhookEndpoints.organizationId, input.organizationId), isNull(webhookEndpoints.revokedAt)),
      )
    if ((active?.n ?? 0) >= MAX_ACTIVE_ENDPOINTS)
      throw new ConflictError(
        `This organization already has ${MAX_ACTIVE_ENDPOINTS} active webhook endpoints, the maximum. Revoke one to add another.`,
      )
    const [recent] = await tx
      .select({ n: count(), oldest: min(webhookEndpoints.createdAt) })
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.organizationId, input.organizationId),
          gt(webhookEndpoints.createdAt, sql`now() - interval '1 hour'`),
        ),
      )
    if ((recent?.n ?? 0) >= MAX_CREATIONS_PER_HOUR) {
      const oldest = recent?.oldest ? new Date(recent.oldest).getTime() : Date.now()
      const wait = Math.max(1, Math.ceil((oldest + 3_600_000 - Date.now()) / 1000))
      throw new RateLimitedError(
        `At most ${MAX_CREATIONS_PER_HOUR} webhook endpoints can be created per hour. Try again in ${Math.ceil(wait / 60)} minute(s).`,
        wait,
      )
    }
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        organizationId: input.organizationId,
        name: clean.name,
        url: clean.url,
        events: clean.events,
        secretCiphertext: encryptSecret(secret),
        secretPrefix: secretPrefix(secret),
        createdByUserId: input.createdByUserId ?? null,
      })
      .returning({ id: webhookEndpoints.id })
    return { id: row!.id, ...clean, secret, secretPrefix: secretPrefix(secret) }
  })
}

export type EndpointSummary = Awaited<ReturnType<typeof listEndpoints>>[number]

/** Every endpoint of the organization, revoked ones included, newest first; never the secret. */
export function listEndpoints(db: DbOrTx, organizationId: string) {
  if (!isUuid(organizationId)) throw new NotFoundError(`Organization not found: ${organizationId}`)
  return db
    .select({
      id: webhookEndpoints.id,
      name: webhookEndpoints.name,
      url: webhookEndpoints.url,
      events: webhookEndpoints.events,
      secretPrefix: webhookEndpoints.secretPrefix,
      createdAt: webhookEndpoints.createdAt,
      lastDeliveryAt: webhookEndpoints.lastDeliveryAt,
      lastStatus: webhookEndpoints.lastStatus,
      lastError: webhookEndpoints.lastError,
      revokedAt: webhookEndpoints.revokedAt,
    })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, organizationId))
    .orderBy(desc(webhookEndpoints.createdAt))
}

/**
 * Revokes an endpoint and cancels its pending deliveries in the same transaction, so no retry
 * goes out afterwards and the slot is free at once. Revoking twice keeps the first time.
 */
export async function revokeEndpoint(db: Db, input: { id: string; organizationId?: string }) {
  if (!isUuid(input.id)) throw new NotFoundError(`Webhook endpoint not found: ${input.id}`)
  const scope = input.organizationId
    ? and(eq(webhookEndpoints.id, input.id), eq(webhookEndpoints.organizationId, input.organizationId))
    : eq(webhookEndpoints.id, input.id)
  return db.transaction(async (tx) => {
    await tx
      .update(webhookEndpoints)
      .set({ revokedAt: sql`now()` })
      .where(and(scope, isNull(webhookEndpoints.revokedAt)))
    const [row] = await tx
      .select({ id: webhookEndpoints.id, revokedAt: webhookEndpoints.revokedAt })
      .from(webhookEndpoints)
      .where(scope)
    if (!row?.revokedAt) throw new NotFoundError(`Webhook endpoint not found: ${input.id}`)
    await tx
      .update(webhookDeliveries)
      .set({ status: 'cancelled' })
      .where(and(eq(webhookDeliveries.endpointId, row.id), eq(webhookDeliveries.status, 'pending')))
    return { id: row.id, revokedAt: row.revokedAt }
  })
}
