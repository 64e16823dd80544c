import type { AutomationKind, replaySessions, SessionStatus, Viewport } from '@/db/schema'
import { sessionFigures } from './session-figures'

/** Who the session belongs to, with whatever the recorder was told about them. */
export interface SessionUser {
  /** `identify()`'s id, when the site identified the user. */
  userId: string | null
  email: string | null
  name: string | null
  /** The recorder's own per-browser id: always there. */
  anonymousId: string
}

export interface SessionListItem {
  id: string
  user: SessionUser
  entryUrl: string
  /** From the last analysis pass, or first-to-last activity while the session is unprocessed. */
  durationMs: number
  pageCount: number | null
  errorCount: number | null
  rageClickCount: number | null
  startedAt: Date
  lastActivityAt: Date
  status: SessionStatus
  eventCount: number
  /** As the recorder sent it (attacker-written): `describeUserAgent` names the browser. */
  userAgent: string | null
  /** The build the page ran (`metadata.release`, attacker-written like every batch field). */
  release: string | null
  /**
   * The recorder's mutation guard stopped recording part of the page (docs/recorder.md#mutation-guard):
   * the replay misses that part's changes.
   */
  degraded: boolean
  /**
   * Why the session is automated traffic (a reproduction run, a WebDriver-driven browser, a bot),
   * null for a person's visit; automated sessions are never counted (docs/hostile-input.md#automated-traffic).
   */
  automation: AutomationKind | null
}

/** One stored session with every column the dashboard's session page reads (not the Data API's shape: ApiSessionDetails). */
export interface SessionRecord extends SessionListItem {
  organizationId: string
  externalId: string
  userProperties: Record<string, unknown> | null
  language: string | null
  viewport: Viewport | null
  batchCount: number
  processedAt: Date | null
  failureReason: string | null
  /** The stored analysis digest (pages, clicks, errors...), null until processed. */
  digest: Record<string, unknown> | null
  /** Pinned: kept past retention up to the pin maximum (docs/privacy.md#retention). */
  pinnedAt: Date | null
}

type SessionRow = typeof replaySessions.$inferSelect

function toSessionUser(
  row: Pick<SessionRow, 'userId' | 'userEmail' | 'userName' | 'anonymousId'>,
): SessionUser {
  return { userId: row.userId, email: row.userEmail, name: row.userName, anonymousId: row.anonymousId }
}

/** The name people recognise first: a name, then an e-mail, then the site's own user id. */
export function userLabel(user: SessionUser): string {
  return user.name ?? user.email ?? user.userId ?? 'Anonymous visitor'
}

export function toSessionListItem(
  row: Pick<
    SessionRow,
    | 'id'
    | 'userId'
    | 'userEmail'
    | 'userName'
    | 'anonymousId'
    | 'entryUrl'
    | 'durationMs'
    | 'pageCount'
    | 'errorCount'
    | 'rageClickCount'
    | 'startedAt'
    | 'lastActivityAt'
    | 'status'
    | 'eventCount'
    | 'userAgent'
    | 'release'
    | 'degraded'
    | 'automation'
  >,
): SessionListItem {
  const figures = sessionFigures(row)
  return {
    id: row.id,
    user: toSessionUser(row),
    entryUrl: row.entryUrl,
    durationMs: row.durationMs ?? Math.max(0, row.lastActivityAt.getTime() - row.startedAt.getTime()),
    pageCount: figures.pages,
    errorCount: figures.errors,
    rageClickCount: row.rageClickCount,
    startedAt: row.startedAt,
    lastActivityAt: row.lastActivityAt,
    status: row.status,
    eventCount: row.eventCount,
    userAgent: row.userAgent,
    release: row.release,
    degraded: row.degraded,
    automation: row.automation,
  }
}

export function toSessionRecord(row: SessionRow): SessionRecord {
  return {
    ...toSessionListItem(row),
    organizationId: row.organizationId,
    externalId: row.externalId,
    userProperties: row.userProperties,
    language: row.language,
    viewport: row.viewport,
    batchCount: row.batchCount,
    processedAt: row.processedAt,
    failureReason: row.failureReason,
    digest: row.digest,
    pinnedAt: row.pinnedAt,
  }
}
