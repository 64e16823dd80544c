import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { encode } from 'next-auth/jwt'
import type { Db } from '@/db/client'
import { memberships, replaySessions, users } from '@/db/schema'
import type { RrwebEvent } from '@/lib/analysis/types'
import { resolveIngestKey } from '@/lib/ingest/resolve-ingest-key'
import { recorderBatches } from './batches'
import { sendBatch } from './ingest'

/**
 * Dashboard fixtures: a member with the next-auth session cookie their browser would carry,
 * and sessions recorded for an organization through the real ingest route.
 */
export async function dashboardMember(db: Db, organizationId: string) {
  const [user] = await db
    .insert(users)
    .values({ email: `member-${randomUUID()}@example.com`, passwordHash: 'not-used' })
    .returning()
  await db.insert(memberships).values({ organizationId, userId: user!.id })
  const token = await encode({
    token: { sub: user!.id, email: user!.email },
    secret: process.env.AUTH_SECRET!,
  })
  return { id: user!.id, cookie: `next-auth.session-token=${token}` }
}

export interface SeedUser {
  id: string | null
  email: string | null
  name: string | null
}

/**
 * Sends a recording as the recorder would (40 events a batch, the last one `final`) for a
 * given user, and answers the stored session's id.
 */
export async function ingestAs(
  db: Db,
  key: string,
  externalId: string,
  events: RrwebEvent[],
  options: { user?: SeedUser | null; url?: string; final?: boolean } = {},
): Promise<string> {
  const user = options.user ?? null
  const properties: Record<string, string> = {}
  if (user?.email) properties.email = user.email
  if (user?.name) properties.name = user.name
  if (user) properties.plan = 'pro'
  const batches = recorderBatches({
    sessionId: externalId,
    events,
    perBatch: 40,
    final: options.final,
    url: options.url,
    user: { id: user?.id ?? null, properties },
  })
  for (const batch of batches) {
    const response = await sendBatch(batch, { key })
    if (response.status !== 200)
      throw new Error(`ingest answered ${response.status}: ${await response.text()}`)
  }
  const resolved = await resolveIngestKey(db, key)
  const [row] = await db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(
      and(
        eq(replaySessions.organizationId, resolved.organizationId),
        eq(replaySessions.externalId, externalId),
      ),
    )
  return row!.id
}

export async function waitForProcessed(db: Db, sessionId: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const [row] = await db
      .select({ status: replaySessions.status, reason: replaySessions.failureReason })
      .from(replaySessions)
      .where(eq(replaySessions.id, sessionId))
    if (row?.status === 'processed') return
    if (row?.status === 'failed') throw new Error(`session ${sessionId} failed: ${row.reason}`)
    if (Date.now() > deadline) throw new Error(`timed out waiting for session ${sessionId} (${row?.status})`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
