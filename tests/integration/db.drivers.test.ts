import { and, desc, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '@/db/client'
import { migrateDatabase } from '@/db/migrate'
import { organizations, replayBatches, replaySessions } from '@/db/schema'
import { createTestDatabase } from '../helpers/db'

let handle: DatabaseHandle

beforeAll(async () => {
  handle = await createTestDatabase()
})
afterAll(async () => {
  await handle.close()
})

describe('database', () => {
  it('runs on the driver the configuration chose', () => {
    expect(handle.kind).toBe(process.env.DATABASE_URL ? 'postgres' : 'pglite')
  })

  it('applies migrations idempotently', async () => {
    await migrateDatabase(handle)
    const rows = await handle.db.execute(sql`select count(*)::int as n from organizations`)
    expect(rows).toBeDefined()
  })

  it('keeps ingest idempotent per organization, session and sequence', async () => {
    const [org] = await handle.db.insert(organizations).values({ name: 'Acme' }).returning()
    const [session] = await handle.db
      .insert(replaySessions)
      .values({
        organizationId: org!.id,
        externalId: 's1',
        startedAt: new Date(),
        lastActivityAt: new Date(),
        entryUrl: 'https://example.com/',
        anonymousId: 'anon',
      })
      .returning()
    const batch = {
      organizationId: org!.id,
      sessionId: session!.id,
      windowId: 'w',
      sequence: 0,
      eventCount: 1,
      firstTimestamp: 1,
      lastTimestamp: 2,
      byteSize: 10,
      blobKey: 'k',
      pageUrl: 'https://example.com/',
    }
    const first = await handle.db.insert(replayBatches).values(batch).onConflictDoNothing().returning()
    const second = await handle.db.insert(replayBatches).values(batch).onConflictDoNothing().returning()
    expect(first).toHaveLength(1)
    expect(second).toHaveLength(0)
    const stored = await handle.db
      .select()
      .from(replayBatches)
      .where(eq(replayBatches.sessionId, session!.id))
    expect(stored).toHaveLength(1)
  })

  it('stores times to the millisecond, so a cursor made from a Date matches the row', async () => {
    const [org] = await handle.db.insert(organizations).values({ name: 'Keyset' }).returning()
    // One statement: every row gets the same now(); Postgres would keep microseconds.
    const sessions = await handle.db
      .insert(replaySessions)
      .values(
        [1, 2, 3, 4, 5].map((n) => ({
          organizationId: org!.id,
          externalId: `k${n}`,
          startedAt: new Date(),
          lastActivityAt: new Date(),
          entryUrl: 'https://example.com/',
          anonymousId: 'anon',
        })),
      )
      .returning()
    const ordered = [...sessions].sort((a, b) => (a.id < b.id ? 1 : -1))
    const cursor = ordered[1]!
    const next = await handle.db
      .select({ id: replaySessions.id })
      .from(replaySessions)
      .where(
        and(
          eq(replaySessions.organizationId, org!.id),
          sql`(${replaySessions.createdAt}, ${replaySessions.id}) < (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id}::uuid)`,
        ),
      )
      .orderBy(desc(replaySessions.createdAt), desc(replaySessions.id))
    expect(next.map((r) => r.id)).toEqual(ordered.slice(2).map((r) => r.id))
  })

  it('serves keyset list order straight from the index, with no sort', async () => {
    const [org] = await handle.db.insert(organizations).values({ name: 'Plan' }).returning()
    // Tiny tables make a sequential scan cheaper; forbid it to see which order the index gives.
    const plan = await handle.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`)
      return tx.execute(
        sql`explain select id from issues where organization_id = ${org!.id}::uuid
            and (created_at, id) < (now(), '00000000-0000-0000-0000-000000000000'::uuid)
            order by created_at desc, id desc limit 26`,
      )
    })
    const text = JSON.stringify(plan)
    expect(text).toContain('issues_org_created_idx')
    expect(text).not.toMatch(/Sort/)
  })

  it('rejects values outside the allowed states', async () => {
    await expect(
      handle.db.execute(sql`insert into organizations (name, plan) values ('x', 'gold')`),
    ).rejects.toThrow()
  })
})
