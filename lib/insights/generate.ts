import { createHash } from 'node:crypto'
import type { LanguageModel } from 'ai'
import { and, eq, gte, isNull, lt } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { insights, issueActivities, issues, replaySessions } from '@/db/schema'
import { issueEventData } from '@/lib/issues/event-data'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { insightMarkdown, plainPreview } from './content'
import { type IntervalFigures, intervalFigures } from './figures'
import { writeInsightWithModel } from './write-insight'

// docs/design/analysis.md §4.8: an insight files an issue when one friction kind on one page pattern
// reaches 5 sessions at 3 times the previous interval's rate (or first appears at 5).
const RISE_MIN_SESSIONS = 5
const RISE_FACTOR = 3

const KIND_LABEL: Record<string, string> = {
  js_error: 'JavaScript errors',
  console_error: 'console errors',
  network_error: 'failed requests',
  rage_click: 'rage clicks',
  dead_click: 'dead clicks',
}

export interface Interval {
  start: Date
  end: Date
}

/** The last whole interval before `now`, aligned to multiples of its length since the epoch. */
export function lastInterval(now: number, hours: number): Interval {
  const length = hours * 3_600_000
  const end = Math.floor(now / length) * length
  return { start: new Date(end - length), end: new Date(end) }
}

interface Rise {
  kind: string
  path: string
  sessions: number
  rate: number
  previousRate: number
  issueIds: string[]
}

export function findRises(current: IntervalFigures, previous: IntervalFigures | null): Rise[] {
  const rises: Rise[] = []
  for (const row of current.frictionByPage) {
    if (row.sessions < RISE_MIN_SESSIONS || current.sessions === 0) continue
    const before = previous?.frictionByPage.find((p) => p.kind === row.kind && p.path === row.path)
    const rate = row.sessions / current.sessions
    const previousRate = before && previous && previous.sessions > 0 ? before.sessions / previous.sessions : 0
    if (previousRate === 0 || rate >= RISE_FACTOR * previousRate)
      rises.push({
        kind: row.kind,
        path: row.path,
        sessions: row.sessions,
        rate,
        previousRate,
        issueIds: row.issueIds,
      })
  }
  return rises
}

function riseText(rise: Rise): string {
  const label = KIND_LABEL[rise.kind] ?? rise.kind
  return rise.previousRate === 0
    ? `${label} appeared on ${rise.path} (${rise.sessions} sessions)`
    : `${label} on ${rise.path} rose ${Math.round(rise.rate / rise.previousRate)}× (${rise.sessions} sessions, ${Math.round(rise.rate * 100)}% of sessions)`
}

async function fileRiseIssue(
  db: Db,
  organizationId: string,
  rise: Rise,
  interval: Interval,
): Promise<string | null> {
  const fingerprint = createHash('sha256').update(`insight|${rise.kind}|${rise.path}`).digest('hex')
  return commitWithEvents(db, async (tx) => {
    const [created] = await tx
      .insert(issues)
      .values({
        organizationId,
        fingerprint,
        kind: rise.kind,
        sourceType: 'insight',
        title: `${riseText(rise).replace(/^./, (c) => c.toUpperCase())}`,
        description: [
          `Between ${interval.start.toISOString()} and ${interval.end.toISOString()}, ${rise.sessions} sessions on ${rise.path} had ${KIND_LABEL[rise.kind] ?? rise.kind} (${Math.round(rise.rate * 100)}% of the interval's sessions, against ${Math.round(rise.previousRate * 100)}% in the interval before).`,
          `Issues behind it: ${rise.issueIds.join(', ')}.`,
        ].join('\n'),
        priority: 'high',
        priorityReason: `A sharp rise across sessions is high: ${rise.sessions} sessions, ${Math.round(rise.rate * 100)}% of the interval's.`,
        sessionCount: rise.sessions,
        firstSeenAt: interval.start,
        lastSeenAt: interval.end,
        evidence: {
          pathPattern: rise.path,
          issueIds: rise.issueIds,
          rate: rise.rate,
          previousRate: rise.previousRate,
        },
      })
      .onConflictDoNothing()
      .returning({ id: issues.id })
    if (!created) return null
    await tx.insert(issueActivities).values({
      issueId: created.id,
      organizationId,
      kind: 'created',
      toStatus: 'unresolved',
      actorType: 'system',
    })
    await enqueueEvent(tx, {
      organizationId,
      name: EVENTS.issueCreated,
      payload: await issueEventData(tx, created.id),
      dedupeKey: `issue.created:${created.id}`,
    })
    return created.id
  })
}

/**
 * Writes the insight of one organization for one interval (once: the unique index makes a
 * second run a no-op) and files issues for sharp rises. An interval without sessions writes
 * nothing. Returns the insight id, or null when there was nothing to write.
 */
export async function generateInsight(
  db: Db,
  organizationId: string,
  interval: Interval,
  write: (
    figures: IntervalFigures,
    previous: IntervalFigures | null,
    rises: string[],
  ) => Promise<string> = async (figures, previous, rises) => insightMarkdown(figures, previous, rises),
): Promise<string | null> {
  const [existing] = await db
    .select({ id: insights.id })
    .from(insights)
    .where(and(eq(insights.organizationId, organizationId), eq(insights.intervalStart, interval.start)))
  if (existing) return null
  const current = await intervalFigures(db, organizationId, interval.start, interval.end)
  if (current.sessions === 0) return null
  const length = interval.end.getTime() - interval.start.getTime()
  const previous = await intervalFigures(
    db,
    organizationId,
    new Date(interval.start.getTime() - length),
    interval.start,
  )
  const rises = findRises(current, previous.sessions > 0 ? previous : null)
  for (const rise of rises) await fileRiseIssue(db, organizationId, rise, interval)
  const content = await write(current, previous.sessions > 0 ? previous : null, rises.map(riseText))
  return commitWithEvents(db, async (tx) => {
    const [row] = await tx
      .insert(insights)
      .values({
        organizationId,
        intervalStart: interval.start,
        intervalEnd: interval.end,
        sessionsCount: current.sessions,
        content,
        contentPreview: plainPreview(content),
      })
      .onConflictDoNothing()
      .returning({ id: insights.id })
    if (!row) return null
    await enqueueEvent(tx, {
      organizationId,
      name: EVENTS.insightGenerated,
      payload: { insightId: row.id, orgId: organizationId, intervalStart: interval.start.toISOString() },
      dedupeKey: `insight.generated:${row.id}`,
    })
    return row.id
  })
}

/** Every organization with people's sessions in the interval (automated ones are never counted). */
async function organizationsWithSessions(db: Db, interval: Interval): Promise<string[]> {
  const rows = await db
    .selectDistinct({ id: replaySessions.organizationId })
    .from(replaySessions)
    .where(
      and(
        gte(replaySessions.createdAt, interval.start),
        lt(replaySessions.createdAt, interval.end),
        isNull(replaySessions.automation),
      ),
    )
  return rows.map((r) => r.id)
}

/** Insights of every organization for one interval; the model writes the text when there is one. */
export async function generateInsightsForInterval(
  db: Db,
  interval: Interval,
  model: LanguageModel | null = null,
): Promise<number> {
  const write = async (current: IntervalFigures, previous: IntervalFigures | null, rises: string[]) =>
    (model && (await writeInsightWithModel(model, current, previous, rises))) ||
    insightMarkdown(current, previous, rises)
  let written = 0
  for (const organizationId of await organizationsWithSessions(db, interval))
    if (await generateInsight(db, organizationId, interval, write)) written++
  return written
}
