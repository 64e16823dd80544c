'use client'

import { useState } from 'react'
import { ISSUE_STATUS_LABELS } from '@/lib/issues/labels'
import type { IssueStatus } from '@/lib/issues/statuses'
import { changeStatusAction, linkTicketAction } from './actions'
import { QuickLinkForm } from './quick-link-form'
import { ActionMessage, useIssueAction } from './use-issue-action'

/** The two status moves people make most, one click each; Ignore is the spec's `transient`. */
const ACTIONS: { status: IssueStatus; label: string; hint: string }[] = [
  { status: 'resolved', label: 'Resolve', hint: 'Fixed; it reopens if seen again' },
  {
    status: 'transient',
    label: 'Ignore',
    hint: `Marks it ${ISSUE_STATUS_LABELS.transient}: a passing problem that needs no fix`,
  },
]

/**
 * One-click status changes through the same server action (and domain function) as the
 * status form, and the ticket: a ticket is never claimed by status alone. With a connected
 * tracker the button leads to its "Create … issue" buttons; without one it asks for the link.
 */
export function QuickActions({
  issueId,
  status,
  ticketLinked,
  canCreate,
}: {
  issueId: string
  status: IssueStatus
  ticketLinked: boolean
  /** A tracker (Linear, GitHub) is connected: tickets are created, not linked by hand. */
  canCreate: boolean
}) {
  const change = useIssueAction((form) => changeStatusAction(issueId, null, form))
  const link = useIssueAction((form) => linkTicketAction(issueId, null, form))
  const [linking, setLinking] = useState(false)
  // The message of whichever was used last.
  const [latest, setLatest] = useState<'change' | 'link'>('change')
  const pending = change.pending || link.pending
  const run = (next: IssueStatus) => {
    const form = new FormData()
    form.set('status', next)
    setLatest('change')
    change.runNow(form)
  }
  const ticket = () => {
    if (!canCreate) return setLinking((open) => !open)
    const create = document.querySelector<HTMLButtonElement>('[data-testid="create-ticket"] button')
    create?.scrollIntoView({ block: 'center' })
    create?.focus()
  }
  return (
    <div data-testid="quick-actions">
      <div className="toolbar">
        {ACTIONS.map((action) => (
          <button
            key={action.status}
            type="button"
            className={`btn btn-small${action.status === 'resolved' ? ' btn-accent' : ''}`}
            title={action.hint}
            disabled={pending || status === action.status}
            onClick={() => run(action.status)}
          >
            {action.label}
          </button>
        ))}
        {ticketLinked ? null : (
          <button
            type="button"
            className="btn btn-small"
            title={
              canCreate
                ? 'Create the ticket in your tracker; the issue is then In a ticket'
                : 'Paste the link of the ticket that tracks it; the issue is then In a ticket'
            }
            aria-expanded={canCreate ? undefined : linking}
            aria-controls={canCreate ? undefined : 'quick-link-ticket'}
            disabled={pending}
            onClick={ticket}
          >
            {canCreate ? 'Create ticket' : 'Link a ticket'}
          </button>
        )}
      </div>
      <ActionMessage result={latest === 'link' ? link.result : change.result} />
      {linking && !ticketLinked && !canCreate ? (
        <div id="quick-link-ticket">
          <QuickLinkForm
            onSubmit={(event) => {
              setLatest('link')
              link.onSubmit(event)
            }}
            pending={link.pending}
          />
        </div>
      ) : null}
    </div>
  )
}
