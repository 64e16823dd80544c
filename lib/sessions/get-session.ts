import { and, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replaySessions } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { type SessionRecord, toSessionRecord } from './views'

export const SESSION_NOT_FOUND = 'Session not found'

/** One session of the organization; another organization's session, or a malformed id, does not exist. */
export async function getSession(
  db: DbOrTx,
  organizationId: string,
  sessionId: string,
): Promise<SessionRecord> {
  if (!isUuid(sessionId)) throw new NotFoundError(SESSION_NOT_FOUND)
  const [row] = await db
    .select()
    .from(replaySessions)
    .where(and(eq(replaySessions.id, sessionId), eq(replaySessions.organizationId, organizationId)))
  if (!row) throw new NotFoundError(SESSION_NOT_FOUND)
  return toSessionRecord(row)
}
