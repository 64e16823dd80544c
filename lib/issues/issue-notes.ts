import { and, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, DbOrTx } from '@/db/client'
import { ISSUE_ACTORS, issueActivities, issues } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { isUuid, NotFoundError } from '@/lib/errors'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { isStorableText, NOT_STORABLE, parseInput } from '@/lib/validation'
import { type ActivityRow, activitiesWithActors } from './activity-actors'
import { activityMoment } from './activity-moment'
import { getIssueRow, ISSUE_NOT_FOUND } from './get-issue'
import { NOTE_MAX_CHARACTERS } from './note-limits'

export const NOTES_PAGE = { default: 25, max: 100 }

const EMPTY = 'Enter the text of the note.'

/** Counts code points up to one past the limit: a longer text is not walked to its end. */
function withinLimit(text: string): boolean {
  let count = 0
  for (const _ of text) if (++count > NOTE_MAX_CHARACTERS) return false
  return true
}

const NoteText = z
  .string({ error: EMPTY })
  .trim()
  .min(1, EMPTY)
  .refine(withinLimit, `A note is limited to ${NOTE_MAX_CHARACTERS.toLocaleString('en-US')} characters.`)
  .refine(isStorableText, `The note ${NOT_STORABLE}`)

/** One note as the Data API and MCP answer it. */
export const Note = z.object({
  id: z.uuid(),
  issueId: z.uuid(),
  text: z.string(),
  author: z.object({
    /** `user`, `credential` or `oauth_client`: notes come from members, keys and connected apps. */
    type: z.enum(ISSUE_ACTORS),
    id: z.string(),
    /** The member's name, or the key's or connected app's; null once deleted (or a member without a name). */
    name: z.string().nullable(),
  }),
  createdAt: z.iso.datetime({ offset: true }),
})
export type Note = z.infer<typeof Note>

/**
 * The author as an API caller sees it: named like the issue history names actors, except that
 * a member without a name stays unnamed rather than shown by e-mail address, which the Data
 * API gives out nowhere else.
 */
function authorName(row: ActivityRow): string | null {
  switch (row.actorType) {
    case 'user':
      return row.userName || null
    case 'credential':
      return row.credentialName
    case 'oauth_client':
      return row.clientName
    case 'system':
      return null
  }
}

function toNote(row: ActivityRow): Note {
  const text = row.metadata?.text
  return {
    id: row.id,
    issueId: row.issueId,
    text: typeof text === 'string' ? text : '',
    author: {
      type: row.actorType,
      // Only the system acts without an id, and it writes no notes.
      id: row.actorId ?? '',
      name: authorName(row),
    },
    createdAt: row.createdAt.toISOString(),
  }
}

/**
 * Adds a note to an issue's history: who wrote it and what, nothing else. A note changes no
 * status and sends no webhook (the spec's events are fixed). The text is checked before the
 * issue is looked at, so bad input stores nothing; the issue row is share-locked until the
 * note is in, so an issue deleted meanwhile is "not found" rather than a foreign-key failure.
 */
export async function addIssueNote(
  db: Db,
  actor: Actor,
  input: { issueId: string; text: unknown },
): Promise<Note> {
  const text = parseInput(NoteText, input.text)
  if (!isUuid(input.issueId)) throw new NotFoundError(ISSUE_NOT_FOUND)
  const id = await db.transaction(async (tx) => {
    const [issue] = await tx
      .select({ id: issues.id })
      .from(issues)
      .where(and(eq(issues.id, input.issueId), eq(issues.organizationId, actor.organizationId)))
      .for('key share')
    if (!issue) throw new NotFoundError(ISSUE_NOT_FOUND)
    const [row] = await tx
      .insert(issueActivities)
      .values({
        issueId: issue.id,
        organizationId: actor.organizationId,
        kind: 'note',
        actorType: actor.actorType,
        actorId: actor.actorId,
        metadata: { text },
        // As for status changes: the moment itself, so the history keeps the order things happened.
        createdAt: activityMoment(issue.id),
      })
      .returning({ id: issueActivities.id })
    return row!.id
  })
  const [row] = await activitiesWithActors(db, actor.organizationId).where(eq(issueActivities.id, id))
  return toNote(row!)
}

/** An issue's notes, newest first, in keyset pages bound to the organization and the issue. */
export async function listIssueNotes(
  db: DbOrTx,
  organizationId: string,
  query: { issueId: string; limit: number; cursor?: string },
): Promise<Page<Note>> {
  const issue = await getIssueRow(db, organizationId, query.issueId)
  const request = { limit: query.limit, cursor: query.cursor, scope: `notes:${organizationId}:${issue.id}` }
  const rows = await activitiesWithActors(db, organizationId)
    .where(
      and(
        eq(issueActivities.issueId, issue.id),
        eq(issueActivities.organizationId, organizationId),
        eq(issueActivities.kind, 'note'),
        afterCursor(request, issueActivities.createdAt, issueActivities.id),
      ),
    )
    .orderBy(desc(issueActivities.createdAt), desc(issueActivities.id))
    .limit(query.limit + 1)
  return toPage(rows, request, toNote)
}
