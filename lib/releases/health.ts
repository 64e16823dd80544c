/**
 * Releases with their health figures (docs/releases.md#health), latest first in the
 * organization's order (docs/releases.md#order). Shared by the Data API and the dashboard.
 * Reads the issue tables directly: lib/issues builds on this folder, not the other way round.
 */
import { and, desc, eq, inArray, isNull, max, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issueActivities, issueSessions, issues, releases, replaySessions } from '@/db/schema'
import { InvalidInputError, NotFoundError } from '@/lib/errors'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { cursorLengthFor, decodeCursor, encodeCursor, INVALID_CURSOR } from '@/lib/pagination/cursor'
import { parseInput } from '@/lib/validation'
import { crashFreePercent, dayShare } from './figures'
import {
  compareOrdered,
  isSemverVersion,
  type OrderedRelease,
  placedAt,
  type ReleaseOrderMode,
} from './order'
import { orderedReleaseColumns, organizationOrderMode, placedAtColumn } from './read-releases'
import { ReleaseVersion } from './version'
import type { AdoptionDay, IssueRef, Release, ReleaseDetail } from './views'

export const RELEASE_HEALTH_PAGE = { default: 50, max: 100 }
/**
 * The most releases one request orders: the ones placed most recently (deploy time, else first
 * seen). Semver order is decided in JavaScript, so an organization with more releases than this
 * lists only these; the order mode itself is decided over all of them.
 */
export const MAX_RELEASES_ORDERED = 1000
/** Each issue list of a release's detail. */
export const RELEASE_ISSUES_LIMIT = 50
export const ADOPTION_DAYS = 30
export const RELEASE_NOT_FOUND = 'Release not found'

const DAY_MS = 86_400_000

type ReleaseRow = OrderedRelease

const releaseColumns = orderedReleaseColumns

interface Figures {
  sessions: number
  sessionsWithErrors: number
  analysed: number
  users: number
  lastSessionAt: Date | null
  newIssues: number
  regressions: number
}

const NO_FIGURES: Figures = {
  sessions: 0,
  sessionsWithErrors: 0,
  analysed: 0,
  users: 0,
  lastSessionAt: null,
  newIssues: 0,
  regressions: 0,
}

const int = (value: SQL) => sql<number>`${value}`.mapWith(Number)

/** The figures of several releases of one organization, three grouped queries in all. */
async function figuresOf(
  db: DbOrTx,
  organizationId: string,
  versions: string[],
): Promise<Map<string, Figures>> {
  const byVersion = new Map<string, Figures>(versions.map((v) => [v, { ...NO_FIGURES }]))
  if (versions.length === 0) return byVersion
  const regressionRelease = sql<string>`${issueActivities.metadata}->>'release'`
  const [sessionRows, newRows, regressionRows] = await Promise.all([
    db
      .select({
        version: replaySessions.release,
        sessions: int(sql`count(*)`),
        withErrors: int(sql`count(*) filter (where ${replaySessions.errorCount} > 0)`),
        analysed: int(sql`count(${replaySessions.errorCount})`),
        // An identified user once whatever their devices; an anonymous visitor once per anonymous id.
        users: int(
          sql`count(distinct case when ${replaySessions.userId} is not null then 'u:' || ${replaySessions.userId} else 'a:' || ${replaySessions.anonymousId} end)`,
        ),
        lastSessionAt: max(replaySessions.createdAt),
      })
      .from(replaySessions)
      .where(
        and(
          eq(replaySessions.organizationId, organizationId),
          isNull(replaySessions.automation),
          inArray(replaySessions.release, versions),
        ),
      )
      .groupBy(replaySessions.release),
    db
      .select({ version: issues.firstRelease, count: int(sql`count(*)`) })
      .from(issues)
      .where(and(eq(issues.organizationId, organizationId), inArray(issues.firstRelease, versions)))
      .groupBy(issues.firstRelease),
    // Activities are indexed by issue, not by organization: reached through the organization's issues.
    db
      .select({ version: regressionRelease, count: int(sql`count(*)`) })
      .from(issues)
      .innerJoin(issueActivities, eq(issueActivities.issueId, issues.id))
      .where(
        and(
          eq(issues.organizationId, organizationId),
          eq(issueActivities.organizationId, organizationId),
          eq(issueActivities.kind, 'regressed'),
          inArray(regressionRelease, versions),
        ),
      )
      .groupBy(regressionRelease),
  ])
  for (const row of sessionRows) {
    const figures = row.version === null ? undefined : byVersion.get(row.version)
    if (!figures) continue
    figures.sessions = row.sessions
    figures.sessionsWithErrors = row.withErrors
    figures.analysed = row.analysed
    figures.users = row.users
    figures.lastSessionAt = row.lastSessionAt
  }
  for (const row of newRows) {
    const figures = row.version === null ? undefined : byVersion.get(row.version)
    if (figures) figures.newIssues = row.count
  }
  for (const row of regressionRows) {
    const figures = byVersion.get(row.version)
    if (figures) figures.regressions = row.count
  }
  return byVersion
}

function toRelease(row: ReleaseRow, figures: Figures): Release {
  return {
    version: row.version,
    semver: row.semver,
    firstSeenAt: row.firstSeenAt.toISOString(),
    deployedAt: row.deployedAt?.toISOString() ?? null,
    sessions: figures.sessions,
    sessionsWithErrors: figures.sessionsWithErrors,
    crashFreeSessions: crashFreePercent(figures.analysed, figures.sessionsWithErrors),
    users: figures.users,
    newIssues: figures.newIssues,
    regressions: figures.regressions,
    lastSessionAt: figures.lastSessionAt?.toISOString() ?? null,
  }
}

export interface ReleasePageRequest {
  limit?: number
  cursor?: string
}

/**
 * A page of the organization's releases, latest first. The cursor holds the last release
 * returned (its name and its place in time), so a page continues after it even when releases
 * arrived meanwhile.
 */
export async function listReleases(
  db: DbOrTx,
  organizationId: string,
  options: ReleasePageRequest = {},
): Promise<{ releases: Release[]; nextCursor: string | null; order: ReleaseOrderMode }> {
  const limit = options.limit ?? RELEASE_HEALTH_PAGE.default
  if (!Number.isInteger(limit) || limit < 1 || limit > RELEASE_HEALTH_PAGE.max)
    throw new InvalidInputError(`limit must be an integer between 1 and ${RELEASE_HEALTH_PAGE.max}`)
  const scope = `releases:${organizationId}`
  const after = options.cursor
    ? decodeCursor(options.cursor, scope, undefined, cursorLengthFor(MAX_RELEASE_LENGTH))
    : undefined
  const mode = await organizationOrderMode(db, organizationId)
  const rows: ReleaseRow[] = await db
    .select(releaseColumns)
    .from(releases)
    .where(eq(releases.organizationId, organizationId))
    .orderBy(desc(placedAtColumn), desc(releases.version))
    .limit(MAX_RELEASES_ORDERED)
  let ordered = rows.sort((a, b) => compareOrdered(b, a, mode))
  if (after) {
    // A release the cursor names holds its place by its name (semver) or its time (seen).
    if (mode === 'semver' && !isSemverVersion(after.id)) throw new InvalidInputError(INVALID_CURSOR)
    const last: OrderedRelease = {
      version: after.id,
      semver: isSemverVersion(after.id),
      firstSeenAt: after.createdAt,
      deployedAt: null,
    }
    ordered = ordered.filter((row) => compareOrdered(row, last, mode) < 0)
  }
  const page = ordered.slice(0, limit)
  const figures = await figuresOf(
    db,
    organizationId,
    page.map((row) => row.version),
  )
  const lastRow = page[page.length - 1]
  return {
    releases: page.map((row) => toRelease(row, figures.get(row.version) ?? NO_FIGURES)),
    nextCursor:
      ordered.length > limit && lastRow
        ? encodeCursor({ createdAt: placedAt(lastRow), id: lastRow.version }, scope)
        : null,
    order: mode,
  }
}

/** One release's row and figures, or undefined when the organization has no such release. */
export async function findRelease(
  db: DbOrTx,
  organizationId: string,
  version: string,
): Promise<Release | undefined> {
  const [row] = await db
    .select(releaseColumns)
    .from(releases)
    .where(and(eq(releases.organizationId, organizationId), eq(releases.version, version)))
  if (!row) return undefined
  const figures = await figuresOf(db, organizationId, [version])
  return toRelease(row, figures.get(version) ?? NO_FIGURES)
}

function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10)
}

/**
 * The release's counted sessions per UTC day over the last ADOPTION_DAYS days (today
 * included), by the server's clock (created_at), and their share of all counted sessions of
 * that day.
 */
async function adoptionOf(
  db: DbOrTx,
  organizationId: string,
  version: string,
  now: Date,
): Promise<AdoptionDay[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const from = new Date(today - (ADOPTION_DAYS - 1) * DAY_MS)
  const until = new Date(today + DAY_MS)
  const day = sql<string>`to_char(${replaySessions.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`
  const rows = await db
    .select({
      day,
      sessions: int(sql`count(*) filter (where ${replaySessions.release} = ${version})`),
      total: int(sql`count(*)`),
    })
    .from(replaySessions)
    .where(
      and(
        eq(replaySessions.organizationId, organizationId),
        isNull(replaySessions.automation),
        sql`${replaySessions.createdAt} >= ${from.toISOString()}::timestamptz`,
        sql`${replaySessions.createdAt} < ${until.toISOString()}::timestamptz`,
      ),
    )
    .groupBy(day)
  const byDay = new Map(rows.map((row) => [row.day, row]))
  const days: AdoptionDay[] = []
  for (let i = 0; i < ADOPTION_DAYS; i++) {
    const key = utcDay(new Date(from.getTime() + i * DAY_MS))
    const row = byDay.get(key)
    days.push({
      day: key,
      sessions: row?.sessions ?? 0,
      share: dayShare(row?.sessions ?? 0, row?.total ?? 0),
    })
  }
  return days
}

const issueRefColumns = {
  id: issues.id,
  title: issues.title,
  status: issues.status,
  priority: issues.priority,
  sessionCount: issues.sessionCount,
}

async function issuesOf(
  db: DbOrTx,
  organizationId: string,
  version: string,
): Promise<ReleaseDetail['issues']> {
  const regressedAt = max(issueActivities.createdAt)
  const seenIn = sql<number>`count(*)`
  const [fresh, regressed, seen] = await Promise.all([
    db
      .select(issueRefColumns)
      .from(issues)
      .where(and(eq(issues.organizationId, organizationId), eq(issues.firstRelease, version)))
      .orderBy(desc(issues.sessionCount), desc(issues.createdAt), issues.id)
      .limit(RELEASE_ISSUES_LIMIT),
    db
      .select({ ...issueRefColumns, at: regressedAt })
      .from(issues)
      .innerJoin(issueActivities, eq(issueActivities.issueId, issues.id))
      .where(
        and(
          eq(issueActivities.organizationId, organizationId),
          eq(issues.organizationId, organizationId),
          eq(issueActivities.kind, 'regressed'),
          sql`${issueActivities.metadata}->>'release' = ${version}`,
        ),
      )
      .groupBy(issues.id)
      .orderBy(desc(regressedAt), issues.id)
      .limit(RELEASE_ISSUES_LIMIT),
    db
      .select({ ...issueRefColumns, seenIn })
      .from(issueSessions)
      .innerJoin(replaySessions, eq(replaySessions.id, issueSessions.sessionId))
      .innerJoin(issues, eq(issues.id, issueSessions.issueId))
      .where(
        and(
          eq(issueSessions.organizationId, organizationId),
          eq(replaySessions.organizationId, organizationId),
          eq(issues.organizationId, organizationId),
          eq(replaySessions.release, version),
          isNull(replaySessions.automation),
        ),
      )
      .groupBy(issues.id)
      .orderBy(desc(seenIn), desc(issues.lastSeenAt), issues.id)
      .limit(RELEASE_ISSUES_LIMIT),
  ])
  const ref = (row: IssueRef): IssueRef => ({
    id: row.id,
    title: row.title,
    status: row.status,
    priority: row.priority,
    sessionCount: row.sessionCount,
  })
  return { new: fresh.map(ref), regressed: regressed.map(ref), seen: seen.map(ref) }
}

/** One release with its figures, adoption and issues; NotFoundError when the organization has no such release. */
export async function getRelease(
  db: DbOrTx,
  organizationId: string,
  version: unknown,
  options: { now?: Date } = {},
): Promise<ReleaseDetail> {
  const name = parseInput(ReleaseVersion, version)
  const release = await findRelease(db, organizationId, name)
  if (!release) throw new NotFoundError(RELEASE_NOT_FOUND)
  const [adoption, issueLists] = await Promise.all([
    adoptionOf(db, organizationId, name, options.now ?? new Date()),
    issuesOf(db, organizationId, name),
  ])
  return { ...release, adoption, issues: issueLists }
}
