'use client'

import type { IssueStatus } from '@/db/schema'
import { changeStatusAction } from './actions'
import { ActionMessage, useIssueAction } from './use-issue-action'

/** The three moves people make most, one click each; Ignore is the spec's `transient`. */
const ACTIONS: { status: IssueStatus; label: string; busy: string; hint: string }[] = [
  { status: 'resolved', label: 'Resolve', busy: 'Resolving…', hint: 'Fixed; it reopens if seen again' },
  { status: 'transient', label: 'Ignore', busy: 'Ignoring…', hint: 'Marks it Transient: a passing problem' },
  {
    status: 'ticket_created',
    label: 'Create ticket',
    busy: 'Saving…',
    hint: 'Marks it Ticket created; link the ticket below',
  },
]

/**
 * One-click status changes through the same server action (and domain function) as the
 * status form; the page's data refreshes in place and the outcome is announced here.
 */
export function QuickActions({ issueId, status }: { issueId: string; status: IssueStatus }) {
  const { result, pending, runNow } = useIssueAction((form) => changeStatusAction(issueId, null, form))
  const run = (next: IssueStatus) => {
    const form = new FormData()
    form.set('status', next)
    runNow(form)
    // A ticket is created elsewhere; its link goes in the ticket form.
    if (next === 'ticket_created') document.getElementById('ticket-provider')?.focus()
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
      </div>
      <ActionMessage result={result} />
    </div>
  )
}
