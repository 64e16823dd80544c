import { z } from 'zod'
import { actorOfPrincipal } from '@/lib/actor'
import { addIssueNote, listIssueNotes, NOTES_PAGE } from '@/lib/issues/issue-notes'
import { parseCursor, parseLimit } from './params'
import { type ApiRequest, bodyField } from './request'

type IssueParams = { issueId: string }

/** The request body, for the OpenAPI document; parsing is addIssueNote's own. */
export const AddNoteBody = z.object({ text: z.string() })

/** POST /api/v1/issues/{issueId}/notes with `{text}` (answered 201) */
export async function addNoteRequest({ db, principal, params, body }: ApiRequest<IssueParams>) {
  const note = await addIssueNote(db, actorOfPrincipal(principal), {
    issueId: params.issueId,
    text: bodyField(body, 'text'),
  })
  return { note }
}

/** GET /api/v1/issues/{issueId}/notes */
export async function listNotesRequest({ db, principal, params, query }: ApiRequest<IssueParams>) {
  const page = await listIssueNotes(db, principal.organizationId, {
    issueId: params.issueId,
    limit: parseLimit(query.get('limit'), NOTES_PAGE),
    cursor: parseCursor(query.get('cursor')),
  })
  return { notes: page.items, nextCursor: page.nextCursor }
}
