'use server'

import { revalidatePath } from 'next/cache'
import { z } from 'zod'
import { ISSUE_STATUSES } from '@/db/schema'
import { type Actor, actorOfMember } from '@/lib/actor'
import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure, actionMember } from '@/lib/http/actions'
import { createTicket } from '@/lib/integrations/create-ticket'
import { addIssueNote } from '@/lib/issues/issue-notes'
import { ISSUE_STATUS_LABELS, ISSUE_STATUS_LIST } from '@/lib/issues/labels'
import { linkTicket, unlinkTicket } from '@/lib/issues/link-ticket'
import { updateIssueStatus } from '@/lib/issues/update-issue-status'
import { formText, parseInput, textArgument } from '@/lib/validation'

const Status = z.enum(ISSUE_STATUSES, { error: `Choose a status: ${ISSUE_STATUS_LIST}.` })

/** The signed-in member as the actor of an issue change, scoped to their organization. */
async function memberActor(): Promise<{ ok: true; actor: Actor } | { ok: false; error: string }> {
  const member = await actionMember()
  if (!member.ok) return member
  return { ok: true, actor: actorOfMember(member) }
}

function revalidate(issueId: string) {
  revalidatePath(`/issues/${issueId}`)
  revalidatePath('/issues')
}

export async function changeStatusAction(
  issueId: string,
  _previous: ActionResult | null,
  form: FormData,
): Promise<ActionResult> {
  const member = await memberActor()
  if (!member.ok) return member
  try {
    const status = parseInput(Status, formText(form, 'status'))
    // The dashboard never says "In a ticket" without one: creating or linking a ticket sets it.
    const issue = await updateIssueStatus(
      await getDb(),
      member.actor,
      { issueId: textArgument(issueId), status },
      { ticketRequired: true },
    )
    revalidate(issue.id)
    return { ok: true, message: `Status is now ${ISSUE_STATUS_LABELS[issue.status]}.` }
  } catch (error) {
    return actionFailure(error, 'change the status')
  }
}

export async function linkTicketAction(
  issueId: string,
  _previous: ActionResult | null,
  form: FormData,
): Promise<ActionResult> {
  const member = await memberActor()
  if (!member.ok) return member
  try {
    const issue = await linkTicket(await getDb(), member.actor, {
      issueId: textArgument(issueId),
      provider: formText(form, 'provider'),
      url: formText(form, 'url'),
      identifier: formText(form, 'identifier'),
    })
    revalidate(issue.id)
    return {
      ok: true,
      message: `Ticket linked. Status: ${ISSUE_STATUS_LABELS[issue.status]}.`,
    }
  } catch (error) {
    return actionFailure(error, 'link the ticket')
  }
}

export async function unlinkTicketAction(issueId: string): Promise<ActionResult> {
  const member = await memberActor()
  if (!member.ok) return member
  try {
    const issue = await unlinkTicket(await getDb(), member.actor, { issueId: textArgument(issueId) })
    revalidate(issue.id)
    return { ok: true, message: `Ticket removed. Status: ${ISSUE_STATUS_LABELS[issue.status]}.` }
  } catch (error) {
    return actionFailure(error, 'remove the ticket')
  }
}

export async function addNoteAction(
  issueId: string,
  _previous: ActionResult | null,
  form: FormData,
): Promise<ActionResult> {
  const member = await memberActor()
  if (!member.ok) return member
  try {
    const note = await addIssueNote(await getDb(), member.actor, {
      issueId: textArgument(issueId),
      // A form sends a textarea's line breaks as CRLF (HTML's form encoding); the member typed
      // newlines, as an API caller sends them.
      text: formText(form, 'text').replace(/\r\n?/g, '\n'),
    })
    revalidate(note.issueId)
    return { ok: true, message: 'Note added to the history.' }
  } catch (error) {
    return actionFailure(error, 'add the note')
  }
}

/** "Create Linear issue" / "Create GitHub issue": the tracker issue, created and linked. */
export async function createTicketAction(issueId: string, provider: string): Promise<ActionResult> {
  const member = await memberActor()
  if (!member.ok) return member
  try {
    const issue = await createTicket(await getDb(), member.actor, {
      issueId: textArgument(issueId),
      provider: textArgument(provider),
    })
    revalidate(issue.id)
    return {
      ok: true,
      message: `Created ${issue.ticketIdentifier ?? 'the ticket'}. Status: ${ISSUE_STATUS_LABELS[issue.status]}.`,
    }
  } catch (error) {
    return actionFailure(error, 'create the ticket')
  }
}
