import { actorOfPrincipal } from '@/lib/actor'
import { recordReplayView } from '@/lib/audit/replay-view'
import { InvalidInputError } from '@/lib/errors'
import { listSessionItems, SESSION_ITEMS_PAGE } from '@/lib/sessions/list-session-items'
import { getSessionDetails } from '@/lib/sessions/session-details'
import { sessionTimelineWindow, TIMELINE_PAGE, TIMELINE_WINDOW_MS } from '@/lib/sessions/timeline-window'
import { parseCursor, parseLimit } from './params'
import type { ApiRequest } from './request'

type SessionParams = { sessionId: string }

function optional(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name)
  return value === null || value === '' ? undefined : value
}

function parseBoolean(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined
  if (value === 'true') return true
  if (value === 'false') return false
  throw new InvalidInputError(`${name} must be true or false`)
}

/** `windowMs`: digits only, so "1e3" or "60s" is refused rather than half-read. */
function parseWindowMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const message = `windowMs must be an integer between 1 and ${TIMELINE_WINDOW_MS.max}`
  if (!/^\d{1,7}$/.test(value)) throw new InvalidInputError(message)
  return Number(value)
}

/** `kinds=error,request`: a comma-separated list, at most a few hundred characters read. */
function parseKinds(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined
  return value
    .slice(0, 300)
    .split(',')
    .map((kind) => kind.trim())
    .filter(Boolean)
}

/** GET /api/v1/sessions */
export async function listSessionsRequest({ db, principal, query }: ApiRequest<unknown>) {
  const page = await listSessionItems(db, principal.organizationId, {
    limit: parseLimit(query.get('limit'), SESSION_ITEMS_PAGE),
    cursor: parseCursor(query.get('cursor')),
    userId: optional(query, 'userId'),
    userEmail: optional(query, 'userEmail'),
    url: optional(query, 'url'),
    hasErrors: parseBoolean(optional(query, 'hasErrors'), 'hasErrors'),
    issueId: optional(query, 'issueId'),
    signalId: optional(query, 'signalId'),
    release: optional(query, 'release'),
    automation: optional(query, 'automation'),
    from: optional(query, 'from'),
    to: optional(query, 'to'),
    q: optional(query, 'q'),
  })
  return { sessions: page.items, nextCursor: page.nextCursor }
}

/** GET /api/v1/sessions/{sessionId} */
export async function getSessionRequest({ db, principal, params }: ApiRequest<SessionParams>) {
  return { session: await getSessionDetails(db, principal.organizationId, params.sessionId) }
}

/** GET /api/v1/sessions/{sessionId}/timeline */
export async function sessionTimelineRequest({ db, principal, params, query }: ApiRequest<SessionParams>) {
  const window = await sessionTimelineWindow(db, principal.organizationId, params.sessionId, {
    around: optional(query, 'around'),
    windowMs: parseWindowMs(optional(query, 'windowMs')),
    limit: parseLimit(query.get('limit'), TIMELINE_PAGE),
    cursor: parseCursor(query.get('cursor')),
    kinds: parseKinds(optional(query, 'kinds')),
  })
  // Reading what a person did on the site is viewing their replay (docs/privacy.md#audit-trail).
  await recordReplayView(db, actorOfPrincipal(principal), { sessionId: window.sessionId, via: 'api' })
  return window
}
