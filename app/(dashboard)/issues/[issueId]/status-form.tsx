'use client'

import { useState } from 'react'
import { ISSUE_STATUS_CHOICES, ISSUE_STATUS_HINTS, ISSUE_STATUS_LABELS } from '@/lib/issues/labels'
import type { IssueStatus } from '@/lib/issues/statuses'
import { changeStatusAction } from './actions'
import { ActionMessage, useIssueAction } from './use-issue-action'

export function StatusForm({
  issueId,
  status,
  ticketLinked,
}: {
  issueId: string
  status: IssueStatus
  /** "In a ticket" is offered only with a ticket to be in; creating or linking one sets it. */
  ticketLinked: boolean
}) {
  const { result, pending, onSubmit } = useIssueAction((form) => changeStatusAction(issueId, null, form))
  // The status also changes without this form (linking a ticket, another member): the select
  // follows the page's status whenever that changes, keeping this form's own message.
  const [value, setValue] = useState(status)
  const [shown, setShown] = useState(status)
  if (shown !== status) {
    setShown(status)
    setValue(status)
  }
  return (
    <form onSubmit={onSubmit} aria-label="Change status">
      <ActionMessage result={result} />
      <div className="inline-form">
        <div className="field">
          <label htmlFor="issue-status">Status</label>
          <select
            className="select"
            id="issue-status"
            name="status"
            value={value}
            onChange={(event) => setValue(event.target.value as IssueStatus)}
            aria-describedby="issue-status-hints"
          >
            {ISSUE_STATUS_CHOICES.filter((s) => s !== 'ticket_created' || ticketLinked || s === status).map(
              (s) => (
                <option key={s} value={s}>
                  {ISSUE_STATUS_LABELS[s]}
                </option>
              ),
            )}
          </select>
        </div>
        <button className="btn btn-accent" type="submit" disabled={pending}>
          {pending ? 'Saving…' : 'Save status'}
        </button>
      </div>
      <ul className="muted" id="issue-status-hints">
        {ISSUE_STATUS_CHOICES.map((s) => (
          <li key={s}>
            <strong>{ISSUE_STATUS_LABELS[s]}</strong>: {ISSUE_STATUS_HINTS[s]}
          </li>
        ))}
      </ul>
    </form>
  )
}
