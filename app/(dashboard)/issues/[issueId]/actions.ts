'use server'

import { revalidatePath } from 'next/cache'
import { z } from 'zod'
import { type ActionResult, memberAction } from '@/lib/http/actions'
import { createTicket } from '@/lib/integrations/create-ticket'
import { addIssueNote } from '@/lib/issues/issue-notes'
import { ISSUE_STATUS_LABELS, ISSUE_STATUS_LIST } from '@/lib/issues/labels'
import { linkTicket, unlinkTicket } from '@/lib/issues/link-ticket'
import { ISSUE_STATUSES } from '@/lib/issues/statuses'
import { updateIssueStatus } from '@/lib/issues/update-issue-status'
import { formText, parseInput, textArgument } from '@/lib/validation'

const Status = z.enum(ISSUE_STATUSES, { error: `Choose a status: ${ISSUE_STATUS_LIST}.` })

function revalidate(issueId: string) {
  revalidatePath(`/issues/${issueId}`)
  revalidatePath('/issues')
}

export const changeStatusAction = memberAction(
  { what: 'change the status' },
  async (
    { db, actor },
    issueId: string,
    _previous: ActionResult | null,
    form: FormData,
  ): Promise<ActionResult> => {
    const status = parseInput(Status, formText(form, 'status'))
    // The dashboard never says "In a ticket" without one: creating or linking a ticket sets it.
    const issue = await updateIssueStatus(
      db,
      actor,
      { issueId: textArgument(issueId), status },
      { ticketRequired: true },
    )
    revalidate(issue.id)
    return { ok: true, message: `Status is now ${ISSUE_STATUS_LABELS[issue.status]}.` }
  },
)

export const linkTicketAction = memberAction(
  { what: 'link the ticket' },
  async (
    { db, actor },
    issueId: string,
    _previous: ActionResult | null,
    form: FormData,
  ): Promise<ActionResult> => {
    const issue = await linkTicket(db, actor, {
      issueId: textArgument(issueId),
      provider: formText(form, 'provider'),
      url: formText(form, 'url'),
      identifier: formText(form, 'identifier'),
    })
    revalidate(issue.id)
    return { ok: true, message: `Ticket linked. Status: ${ISSUE_STATUS_LABELS[issue.status]}.` }
  },
)

export const unlinkTicketAction = memberAction(
  { what: 'remove the ticket' },
  async ({ db, actor }, issueId: string): Promise<ActionResult> => {
    const issue = await unlinkTicket(db, actor, { issueId: textArgument(issueId) })
    revalidate(issue.id)
    return { ok: true, message: `Ticket removed. Status: ${ISSUE_STATUS_LABELS[issue.status]}.` }
  },
)

export const addNoteAction = memberAction(
  { what: 'add the note' },
  async (
    { db, actor },
    issueId: string,
    _previous: ActionResult | null,
    form: FormData,
  ): Promise<ActionResult> => {
    const note = await addIssueNote(db, actor, {
      issueId: textArgument(issueId),
      // A form sends a textarea's line breaks as CRLF (HTML's form encoding); the member typed
      // newlines, as an API caller sends them.
      text: formText(form, 'text').replace(/\r\n?/g, '\n'),
    })
    revalidate(note.issueId)
    return { ok: true, message: 'Note added to the history.' }
  },
)

/** "Create Linear issue" / "Create GitHub issue": the tracker issue, created and linked. */
export const createTicketAction = memberAction(
  { what: 'create the ticket' },
  async ({ db, actor }, issueId: string, provider: string): Promise<ActionResult> => {
    const issue = await createTicket(db, actor, {
      issueId: textArgument(issueId),
      provider: textArgument(provider),
    })
    revalidate(issue.id)
    return {
      ok: true,
      message: `Created ${issue.ticketIdentifier ?? 'the ticket'}. Status: ${ISSUE_STATUS_LABELS[issue.status]}.`,
    }
  },
)
