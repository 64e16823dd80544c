import { and, asc, count, eq, gt, or, type SQL } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { issueSessions, issues, replaySessions } from '@/db/schema'
import { readSessionEvents, sessionBatches } from '@/lib/sessions/read-events'
import { getSessionDetails } from '@/lib/sessions/session-details'
import { readTrail } from '@/lib/sessions/trail-entries'
import type { BlobStore } from '@/lib/storage/types'
import type { ExportFileWriter } from './export-file'
import { type PersonRef, personSessionsWhere } from './person'

/**
 * The NDJSON document of one person's data (docs/privacy.md#exports), written line by line:
 *
 *   {"type":"header", ...}                       what it is, when, how many sessions, redaction
 *   per session, oldest first:
 *     {"type":"session","session":{...}}          as GET /api/v1/sessions/{id} shows it
 *     {"type":"event","sessionId",...}            each recorded rrweb event, as stored
 *     {"type":"timeline","sessionId",...}         each stored timeline entry
 *     {"type":"issue","sessionId",...}            each issue found in the session, with its evidence there
 *   {"type":"truncated", ...}                     only when the size bound was reached
 *   {"type":"end","truncated",...,"counts"}       always last: a file without it is incomplete
 *
 * Memory holds one page of session ids, one stored batch and one part of the file at a time.
 */

export const EXPORT_FORMAT = 'session-replay-issues.person-export.v1'

export const EXPORT_REDACTION =
  'As stored: inputs, text and network details the recorder masked or left out, and what ingest or a re-masking redacted, are not in the recording and cannot be recovered here'

const SESSION_PAGE = 100
const TRAIL_PAGE = 500
// Room kept below the bound for the truncation and end lines, so the file never exceeds it.
const CLOSING_RESERVE = 4 * 1024

export interface ExportCounts extends Record<string, number> {
  sessions: number
  events: number
  timelineEntries: number
  issues: number
  unreadableSessions: number
  truncated: number
}

class BoundReached extends Error {}

/** Writes the document into `file`; returns what it wrote. Never exceeds `maxBytes`. */
export async function writePersonExport(
  deps: { db: Db; blobs: BlobStore },
  input: {
    organizationId: string
    exportId: string
    person: PersonRef
    file: ExportFileWriter
    maxBytes: number
    now?: Date
  },
): Promise<ExportCounts> {
  const { db, blobs } = deps
  const { organizationId, person, file } = input
  const counts: ExportCounts = {
    sessions: 0,
    events: 0,
    timelineEntries: 0,
    issues: 0,
    unreadableSessions: 0,
    truncated: 0,
  }
  const limit = input.maxBytes - CLOSING_RESERVE
  const emit = async (value: unknown) => {
    const line = Buffer.from(`${JSON.stringify(value)}\n`, 'utf8')
    if (file.bytes + line.byteLength > limit) throw new BoundReached()
    await file.write(line)
  }

  const where = personSessionsWhere(organizationId, person)
  const [total] = await db.select({ n: count() }).from(replaySessions).where(where)
  await emit({
    type: 'header',
    format: EXPORT_FORMAT,
    exportId: input.exportId,
    organizationId,
    person: { kind: person.kind },
    generatedAt: (input.now ?? new Date()).toISOString(),
    counts: { sessions: total?.n ?? 0 },
    maxBytes: input.maxBytes,
    redaction: EXPORT_REDACTION,
  })

  let lastSessionId: string | null = null
  try {
    for await (const sessionId of personSessionIds(db, where)) {
      lastSessionId = sessionId
      await emit({ type: 'session', session: await getSessionDetails(db, organizationId, sessionId) })
      counts.sessions++
      await emitEvents(db, blobs, sessionId, emit, counts)
      for await (const entry of trailOf(db, organizationId, sessionId)) {
        await emit({ type: 'timeline', sessionId, ...entry })
        counts.timelineEntries++
      }
      for (const link of await sessionIssueLinks(db, organizationId, sessionId)) {
        await emit({ type: 'issue', sessionId, ...link })
        counts.issues++
      }
    }
  } catch (error) {
    if (!(error instanceof BoundReached)) throw error
    counts.truncated = 1
    await file.write(
      line({
        type: 'truncated',
        reason: `The export reached its bound of ${input.maxBytes} bytes; what follows in the session below, and later sessions, are left out`,
        sessionId: lastSessionId,
      }),
    )
  }
  await file.write(line({ type: 'end', truncated: counts.truncated > 0, counts }))
  await file.flush()
  return counts
}

function line(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8')
}

/** The person's sessions, oldest first, one page of ids at a time (keyset on started_at, id). */
async function* personSessionIds(db: Db, where: SQL): AsyncGenerator<string> {
  let after: { startedAt: Date; id: string } | null = null
  while (true) {
    const keyset: SQL | undefined = after
      ? or(
          gt(replaySessions.startedAt, after.startedAt),
          and(eq(replaySessions.startedAt, after.startedAt), gt(replaySessions.id, after.id)),
        )
      : undefined
    const page = await db
      .select({ id: replaySessions.id, startedAt: replaySessions.startedAt })
      .from(replaySessions)
      .where(keyset ? and(where, keyset) : where)
      .orderBy(asc(replaySessions.startedAt), asc(replaySessions.id))
      .limit(SESSION_PAGE)
    for (const row of page) yield row.id
    if (page.length < SESSION_PAGE) return
    after = page.at(-1)!
  }
}

/**
 * The session's recorded events, decrypted with its data key. A session whose key was erased
 * or whose batch is gone gives a note instead of failing the whole export.
 */
async function emitEvents(
  db: Db,
  blobs: BlobStore,
  sessionId: string,
  emit: (value: unknown) => Promise<void>,
  counts: ExportCounts,
): Promise<void> {
  try {
    for await (const event of readSessionEvents(blobs, await sessionBatches(db, sessionId))) {
      await emit({ type: 'event', sessionId, event })
      counts.events++
    }
  } catch (error) {
    if (error instanceof BoundReached) throw error
    counts.unreadableSessions++
    await emit({ type: 'note', sessionId, note: "The session's recorded events could not be read" })
  }
}

async function* trailOf(db: Db, organizationId: string, sessionId: string) {
  let afterPosition: number | undefined
  while (true) {
    const page = await readTrail(db, organizationId, sessionId, { afterPosition, limit: TRAIL_PAGE })
    for (const row of page) yield row
    if (page.length < TRAIL_PAGE) return
    afterPosition = page.at(-1)!.position
  }
}

/**
 * The issues found in the session, with what was found in this session (occurrences, evidence).
 * Only the issue's own labels come along: its description, steps and preview may have been
 * written from another person's session, so they stay out.
 */
async function sessionIssueLinks(db: Db, organizationId: string, sessionId: string) {
  const rows = await db
    .select({
      id: issues.id,
      kind: issues.kind,
      title: issues.title,
      status: issues.status,
      priority: issues.priority,
      createdAt: issues.createdAt,
      occurrences: issueSessions.occurrences,
      firstOccurrenceAt: issueSessions.firstOccurrenceAt,
      evidence: issueSessions.evidence,
    })
    .from(issueSessions)
    .innerJoin(issues, eq(issues.id, issueSessions.issueId))
    .where(and(eq(issueSessions.sessionId, sessionId), eq(issueSessions.organizationId, organizationId)))
    .orderBy(asc(issueSessions.firstOccurrenceAt), asc(issues.id))
  return rows.map(({ occurrences, firstOccurrenceAt, evidence, createdAt, ...issue }) => ({
    issue: { ...issue, createdAt: createdAt.toISOString() },
    occurrences,
    firstOccurrenceAt: firstOccurrenceAt.toISOString(),
    evidence,
  }))
}
