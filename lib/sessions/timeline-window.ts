import { and, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueSessions } from '@/db/schema'
import { cutText, TRAIL_KINDS, TRAIL_LIMITS, type TrailEntry, type TrailKind } from '@/lib/analysis/trail'
import { InvalidInputError, isUuid } from '@/lib/errors'
import { decodeCursor, encodeCursor, INVALID_CURSOR } from '@/lib/pagination/cursor'
import type { TimelineItem, TimelineWindow } from './api-views'
import { trailFromDigest } from './digest-trail'
import { parseInstant } from './instant'
import { sessionRowOf } from './session-details'
import { readTrail } from './trail-entries'

/** `limit` of the timeline: entries per page. */
export const TIMELINE_PAGE = { default: 50, max: 200 }
/** `windowMs`: the whole span around `around` (half before, half after). */
export const TIMELINE_WINDOW_MS = { default: 60_000, max: 600_000 }
/**
 * A page also ends once its entries hold this many bytes of JSON (the next page starts after
 * the last one answered): 200 entries of long errors would otherwise be half a megabyte.
 */
export const TIMELINE_PAGE_BYTES = 64 * 1024
/** Texts are cut to these for an agent's context (the stored trail keeps more). */
const TIMELINE_TEXT = { message: 500, stack: 1_500, url: 500, payload: 500 } as const

export const INVALID_KINDS = `kinds must be a comma-separated list of: ${TRAIL_KINDS.join(', ')}`
export const INVALID_AROUND =
  'around must be an ISO 8601 time with a time zone, epoch milliseconds or the id of an issue of this session'
const MAX_AROUND_CHARS = 64
// Rows read per query when a kinds filter may drop some: the trail's ceiling is a few of these.
const FILTERED_CHUNK = 250

export interface TimelineQuery {
  /** An ISO 8601 time, epoch milliseconds, or an issue id (its first occurrence in this session). */
  around?: string
  /** The span centred on `around`; ignored without it (the whole session). */
  windowMs?: number
  limit: number
  cursor?: string
  /** Only entries of these kinds (TRAIL_KINDS); all when absent or empty. */
  kinds?: readonly string[]
}

type Positioned = { position: number; entry: TrailEntry }
type Reader = (afterPosition: number | undefined, count: number) => Promise<Positioned[]>

function rangeError(name: string, range: { max: number }, min = 1): InvalidInputError {
  return new InvalidInputError(`${name} must be an integer between ${min} and ${range.max}`)
}

function validKinds(kinds: readonly string[] | undefined): TrailKind[] | null {
  if (!kinds || kinds.length === 0) return null
  const known = TRAIL_KINDS as readonly string[]
  if (kinds.length > TRAIL_KINDS.length * 2 || kinds.some((kind) => !known.includes(kind)))
    throw new InvalidInputError(INVALID_KINDS)
  return TRAIL_KINDS.filter((kind) => kinds.includes(kind))
}

/** The moment `around` names, in epoch milliseconds. */
async function resolveAround(
  db: DbOrTx,
  session: { id: string; organizationId: string },
  around: string,
): Promise<number> {
  const value = around.trim()
  if (value.length === 0 || value.length > MAX_AROUND_CHARS) throw new InvalidInputError(INVALID_AROUND)
  if (/^\d{1,15}$/.test(value)) return Number(value)
  if (isUuid(value)) {
    const [link] = await db
      .select({ at: issueSessions.firstOccurrenceAt })
      .from(issueSessions)
      .where(
        and(
          eq(issueSessions.issueId, value.toLowerCase()),
          eq(issueSessions.sessionId, session.id),
          eq(issueSessions.organizationId, session.organizationId),
        ),
      )
    // The same answer for an issue of another organization and one that does not exist.
    if (!link) throw new InvalidInputError(`around: issue ${value} did not occur in this session`)
    return link.at.getTime()
  }
  try {
    return parseInstant(value, 'around').getTime()
  } catch {
    throw new InvalidInputError(INVALID_AROUND)
  }
}

function afterPositionOf(cursor: string | undefined, scope: string): number | undefined {
  if (!cursor) return undefined
  const { id } = decodeCursor(cursor, scope)
  if (!/^\d{1,9}$/.test(id)) throw new InvalidInputError(INVALID_CURSOR)
  return Number(id)
}

/** One page of entries of the wanted kinds after `after`, and where the next page starts. */
async function readPage(
  read: Reader,
  kinds: TrailKind[] | null,
  limit: number,
  after: number | undefined,
): Promise<{ rows: Positioned[]; next: number | null }> {
  if (!kinds) {
    const rows = await read(after, limit + 1)
    return rows.length > limit
      ? { rows: rows.slice(0, limit), next: rows[limit - 1]!.position }
      : { rows, next: null }
  }
  const rows: Positioned[] = []
  let from = after
  for (let scanned = 0; scanned < TRAIL_LIMITS.entries; scanned += FILTERED_CHUNK) {
    const chunk = await read(from, FILTERED_CHUNK)
    for (const row of chunk) {
      if (!kinds.includes(row.entry.kind)) continue
      if (rows.length === limit) return { rows, next: rows[limit - 1]!.position }
      rows.push(row)
    }
    if (chunk.length < FILTERED_CHUNK) return { rows, next: null }
    from = chunk[chunk.length - 1]!.position
  }
  // Only past the trail's own ceiling: carry on from the last row looked at.
  return { rows, next: from ?? null }
}

/** An entry as the timeline answers it: its offset and position added, long texts cut with the marker. */
function toTimelineItem(row: Positioned, startedAt: number): TimelineItem {
  const { entry } = row
  const base = {
    at: entry.at,
    offsetMs: entry.at - startedAt,
    position: row.position,
    pageUrl: cutText(entry.pageUrl, TIMELINE_TEXT.url),
  }
  switch (entry.kind) {
    case 'navigation':
      return { ...entry, ...base, url: cutText(entry.url, TIMELINE_TEXT.url) }
    case 'console':
      return { ...entry, ...base, message: cutText(entry.message, TIMELINE_TEXT.message) }
    case 'error':
      return {
        ...entry,
        ...base,
        message: cutText(entry.message, TIMELINE_TEXT.message),
        stack: entry.stack === null ? null : cutText(entry.stack, TIMELINE_TEXT.stack),
        ...(typeof entry.originalStack === 'string'
          ? { originalStack: cutText(entry.originalStack, TIMELINE_TEXT.stack) }
          : {}),
      }
    case 'request':
      return { ...entry, ...base, url: cutText(entry.url, TIMELINE_TEXT.url) }
    case 'custom':
      return {
        ...entry,
        ...base,
        tag: cutText(entry.tag, TIMELINE_TEXT.message),
        payload: entry.payload === null ? null : cutText(entry.payload, TIMELINE_TEXT.payload),
      }
    default:
      return { ...entry, ...base }
  }
}

/**
 * A window of a session's timeline, for an agent: around a moment (a time, or an issue's first
 * occurrence in this session) or, without `around`, the whole session from its start; paged
 * by position with a cursor bound to the session, the window and the kinds. Read from the
 * stored trail, or rebuilt from the digest for sessions analysed before trails existed
 * (`source` says which). Unknown, malformed or other organizations' sessions are not found.
 */
export async function sessionTimelineWindow(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
  query: TimelineQuery,
): Promise<TimelineWindow> {
  const session = await sessionRowOf(db, organizationId, sessionId)
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > TIMELINE_PAGE.max)
    throw rangeError('limit', TIMELINE_PAGE)
  const windowMs = query.windowMs ?? TIMELINE_WINDOW_MS.default
  if (!Number.isInteger(windowMs) || windowMs < 1 || windowMs > TIMELINE_WINDOW_MS.max)
    throw rangeError('windowMs', TIMELINE_WINDOW_MS)
  const kinds = validKinds(query.kinds)
  const around = query.around === undefined ? undefined : await resolveAround(db, session, query.around)
  const fromAt = around === undefined ? undefined : around - Math.floor(windowMs / 2)
  const toAt = around === undefined ? undefined : around + Math.ceil(windowMs / 2)
  const scope = `timeline:${organizationId}:${session.id}:${fromAt ?? ''}:${toAt ?? ''}:${kinds?.join(',') ?? '*'}`
  const after = afterPositionOf(query.cursor, scope)

  let source: TimelineWindow['source'] = 'none'
  let truncated = false
  let read: Reader = async () => []
  if (session.trailTruncated !== null) {
    source = 'trail'
    truncated = session.trailTruncated
    read = (afterPosition, limit) =>
      readTrail(db, organizationId, session.id, { fromAt, toAt, afterPosition, limit })
  } else {
    const digest = trailFromDigest(session.digest)
    if (digest) {
      source = 'digest'
      truncated = digest.truncated
      const inWindow = digest.entries
        .map((entry, position) => ({ position, entry }))
        .filter(
          ({ entry }) =>
            (fromAt === undefined || entry.at >= fromAt) && (toAt === undefined || entry.at <= toAt),
        )
      read = async (afterPosition, limit) =>
        inWindow.filter((row) => afterPosition === undefined || row.position > afterPosition).slice(0, limit)
    }
  }
  const page = await readPage(read, kinds, query.limit, after)
  const startedAt = session.startedAt.getTime()
  const entries: TimelineItem[] = []
  let bytes = 0
  let next = page.next
  for (const row of page.rows) {
    const item = toTimelineItem(row, startedAt)
    bytes += Buffer.byteLength(JSON.stringify(item))
    if (entries.length > 0 && bytes > TIMELINE_PAGE_BYTES) {
      next = entries[entries.length - 1]!.position
      break
    }
    entries.push(item)
  }
  return {
    sessionId: session.id,
    startedAt: session.startedAt.toISOString(),
    source,
    window: {
      from: fromAt === undefined ? null : new Date(fromAt).toISOString(),
      to: toAt === undefined ? null : new Date(toAt).toISOString(),
    },
    kinds,
    truncated,
    entries,
    nextCursor: next === null ? null : encodeCursor({ createdAt: new Date(0), id: String(next) }, scope),
  }
}
