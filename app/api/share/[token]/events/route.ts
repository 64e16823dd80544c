import { NotFoundError } from '@/lib/errors'
import { shareRoute } from '@/lib/http/share'
import { sessionEventsJson } from '@/lib/sessions/events-json'
import { sessionBatches } from '@/lib/sessions/read-events'
import { SHARE_LINK_NOT_FOUND } from '@/lib/sharing/limits'
import { openSharedReplay, recordShareView } from '@/lib/sharing/open-shared'
import { playableOnly } from '@/lib/sharing/playable-events'
import { getBlobStore } from '@/lib/storage'

/** A share link's replay events (the same stored, masked events the dashboard's player reads). */
export const GET = shareRoute<{ token: string }>(async ({ db, params }) => {
  const shared = await openSharedReplay(db, params.token)
  if (!shared) throw new NotFoundError(SHARE_LINK_NOT_FOUND)
  await recordShareView(db, shared)
  const body = await sessionEventsJson(
    getBlobStore(),
    await sessionBatches(db, shared.sessionId),
    playableOnly,
  )
  return new Response(body, { headers: { 'Content-Type': 'application/json; charset=utf-8' } })
})
