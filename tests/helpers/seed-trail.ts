import { randomUUID } from 'node:crypto'
import type { Db } from '@/db/client'
import { issueSessions, replaySessions, sessionTimelineEntries } from '@/db/schema'
import type { TrailEntry } from '@/lib/analysis/trail'

/**
 * A processed session of an issue, with the trail analysis would have stored for it (or none:
 * `trail: null` is a session processed before trails existed).
 */
export async function seedIssueSession(
  db: Db,
  organizationId: string,
  issueId: string,
  options: {
    trail: TrailEntry[] | null
    firstOccurrenceAt: number
    startedAt?: number
    entryUrl?: string
    userId?: string | null
    truncated?: boolean
    evidence?: Record<string, unknown> | null
  },
) {
  const startedAt = options.startedAt ?? options.trail?.[0]?.at ?? options.firstOccurrenceAt - 1000
  const [session] = await db
    .insert(replaySessions)
    .values({
      organizationId,
      externalId: `s-${randomUUID()}`,
      status: 'processed',
      startedAt: new Date(startedAt),
      lastActivityAt: new Date(options.firstOccurrenceAt + 5000),
      entryUrl: options.entryUrl ?? options.trail?.[0]?.pageUrl ?? 'https://shop.example.com/',
      anonymousId: `anon-${randomUUID().slice(0, 8)}`,
      userId: options.userId ?? null,
      trailTruncated: options.trail === null ? null : (options.truncated ?? false),
    })
    .returning()
  const sessionId = session!.id
  if (options.trail && options.trail.length > 0)
    await db.insert(sessionTimelineEntries).values(
      options.trail.map((entry, position) => ({
        sessionId,
        organizationId,
        position,
        at: entry.at,
        kind: entry.kind,
        entry,
      })),
    )
  await db.insert(issueSessions).values({
    issueId,
    sessionId,
    organizationId,
    firstOccurrenceAt: new Date(options.firstOccurrenceAt),
    evidence: options.evidence ?? null,
  })
  return session!
}
