import { AUDIT_EVENTS_PAGE, listAuditEvents } from '@/lib/audit/list-audit-events'
import { parseCursor, parseLimit } from './params'
import type { ApiRequest } from './request'

function optional(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name)
  return value === null || value === '' ? undefined : value
}

/** GET /api/v1/audit-events: the organization's audit trail, newest first */
export async function listAuditEventsRequest({ db, principal, query }: ApiRequest<Record<string, never>>) {
  const page = await listAuditEvents(db, principal.organizationId, {
    limit: parseLimit(query.get('limit'), AUDIT_EVENTS_PAGE),
    cursor: parseCursor(query.get('cursor')),
    action: optional(query, 'action'),
    since: optional(query, 'since'),
  })
  return { events: page.items, nextCursor: page.nextCursor }
}
