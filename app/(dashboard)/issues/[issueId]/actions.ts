'use server'

import { revalidatePath } from 'next/cache'
import { z } from 'zod'
import { type ActionResult, memberAction } from '@/lib/http/actions'
import { createTicket } from '@/lib/integrations/create-ticket'
import { addIssueNote } from '@/lib/issues/issue-notes'
import {
  ISSUE_STATUS_LABELS,
  ISSUE_STATUS_LIST,
  RESOLVE_IN_NEXT_RELEASE,
  RESOLVE_IN_RELEASE,
} from '@/lib/issues/labels'
import { linkTicket, unlinkTicket } from '@/lib/issues/link-ticket'
import { parseResolution } from '@/lib/issues/resolution'
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
    // The control's choices: a status, or resolved naming the release of the fix.
    const choice = formText(form, 'status')
    const inRelease = choice === RESOLVE_IN_RELEASE ? formText(form, 'inRelease') : undefined
    if (inRelease === '') return { ok: false, error: 'Choose the release that contains the fix.' }
    const resolving = choice === RESOLVE_IN_RELEASE || choice === RESOLVE_IN_NEXT_RELEASE
    const status = parseInput(Status, resolving ? 'resolved' : choice)
    const resolution = parseResolution(status, {
      inRelease,
      inNextRelease: choice === RESOLVE_IN_NEXT_RELEASE ? true : undefined,
    })
    // The dashboard never says "In a ticket" without one: creating or linking a ticket sets it.
    const issue = await updateIssueStatus(
      db,
      actor,
      { issueId: textArgument(issueId), status, resolution },
      { ticketRequired: true },
    )
    revalidate(issue.id)
    const fix = issue.resolvedInRelease
      ? ` in ${issue.resolvedInRelease}`
      : issue.resolvedInNextRelease
        ? ' in the next release'
        : ''
    return { ok: true, message: `Status is now ${ISSUE_STATUS_LABELS[issue.status]}${fix}.` }
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
