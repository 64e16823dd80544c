import { randomUUID } from 'node:crypto'
import type { Db } from '@/db/client'
import { issueSessions, replaySessions, sessionTimelineEntries, signalMatches } from '@/db/schema'
import type { TrailEntry, TrailTarget } from '@/lib/analysis/trail'

/**
 * Sessions as a processing pass leaves them, written directly: a row with its figures and,
 * optionally, a stored trail, issue links and signal matches. For the sessions API and tools,
 * whose behaviour depends on what is stored, not on how analysis got there.
 */
export async function seedSession(
  db: Db,
  organizationId: string,
  overrides: Partial<typeof replaySessions.$inferInsert> = {},
): Promise<typeof replaySessions.$inferSelect> {
  const startedAt = overrides.startedAt ?? new Date('2026-03-01T10:00:00.000Z')
  const [row] = await db
    .insert(replaySessions)
    .values({
      organizationId,
      externalId: `seeded-${randomUUID()}`,
      status: 'processed',
      startedAt,
      lastActivityAt: new Date(startedAt.getTime() + 120_000),
      entryUrl: 'https://shop.example/',
      anonymousId: `anon-${randomUUID()}`,
      userAgent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
      language: 'en-GB',
      viewport: { width: 1280, height: 800 },
      eventCount: 120,
      durationMs: 120_000,
      pageCount: 2,
      errorCount: 0,
      rageClickCount: 0,
      processedAt: new Date(),
      ...overrides,
    })
    .returning()
  return row!
}

/** Stores `entries` as the session's trail (positions in the order given) and marks it stored. */
export async function seedTrail(
  db: Db,
  session: { id: string; organizationId: string },
  entries: TrailEntry[],
): Promise<void> {
  for (let i = 0; i < entries.length; i += 500)
    await db.insert(sessionTimelineEntries).values(
      entries.slice(i, i + 500).map((entry, n) => ({
        sessionId: session.id,
        organizationId: session.organizationId,
        position: i + n,
        at: entry.at,
        kind: entry.kind,
        entry,
      })),
    )
}

export async function linkIssue(
  db: Db,
  session: { id: string; organizationId: string },
  issueId: string,
  firstOccurrenceAt: Date,
): Promise<void> {
  await db.insert(issueSessions).values({
    issueId,
    sessionId: session.id,
    organizationId: session.organizationId,
    firstOccurrenceAt,
  })
}

export async function matchSignal(
  db: Db,
  session: { id: string; organizationId: string },
  signalId: string,
): Promise<void> {
  await db
    .insert(signalMatches)
    .values({ signalId, sessionId: session.id, organizationId: session.organizationId })
}

export function target(overrides: Partial<TrailTarget> = {}): TrailTarget {
  return {
    tag: 'button',
    selector: '#pay',
    role: 'button',
    name: 'Pay now',
    text: 'Pay now',
    testId: null,
    id: 'pay',
    type: 'submit',
    href: null,
    ...overrides,
  }
}
