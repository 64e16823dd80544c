import { recordReplayView } from '@/lib/audit/replay-view'
import { dashboardRoute } from '@/lib/http/dashboard-api'
import { sessionEventsJson } from '@/lib/sessions/events-json'
import { getSession } from '@/lib/sessions/get-session'
import { sessionBatches } from '@/lib/sessions/read-events'
import { getBlobStore } from '@/lib/storage'

/** The replay player's events: the session's rrweb events in order, streamed as one JSON array. */
export const GET = dashboardRoute<{ sessionId: string }>(async ({ db, organizationId, userId, params }) => {
  const session = await getSession(db, organizationId, params.sessionId)
  // The one place a replay's events reach the dashboard: who watched it goes in the audit trail.
  await recordReplayView(
    db,
    { organizationId, actorType: 'user', actorId: userId },
    { sessionId: session.id, via: 'dashboard' },
  )
  const body = await sessionEventsJson(getBlobStore(), await sessionBatches(db, session.id))
  return new Response(body, { headers: { 'Content-Type': 'application/json; charset=utf-8' } })
})
