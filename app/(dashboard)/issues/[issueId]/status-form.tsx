'use client'

import { useState } from 'react'
import {
  ISSUE_STATUS_CHOICES,
  ISSUE_STATUS_HINTS,
  ISSUE_STATUS_LABELS,
  RESOLVE_CHOICE_HINTS,
  RESOLVE_CHOICE_LABELS,
  RESOLVE_IN_NEXT_RELEASE,
  RESOLVE_IN_RELEASE,
} from '@/lib/issues/labels'
import type { IssueStatus } from '@/lib/issues/statuses'
import { changeStatusAction } from './actions'
import { ActionMessage, useIssueAction } from './use-issue-action'

type Choice = IssueStatus | typeof RESOLVE_IN_RELEASE | typeof RESOLVE_IN_NEXT_RELEASE

/** The control's choice that shows the issue as it is, resolution included. */
function choiceOf(status: IssueStatus, fix: { inRelease: string | null; nextRelease: boolean }): Choice {
  if (status !== 'resolved') return status
  if (fix.inRelease) return RESOLVE_IN_RELEASE
  return fix.nextRelease ? RESOLVE_IN_NEXT_RELEASE : status
}

export function StatusForm({
  issueId,
  status,
  ticketLinked,
  releases,
  fix,
}: {
  issueId: string
  status: IssueStatus
  /** "In a ticket" is offered only with a ticket to be in; creating or linking one sets it. */
  ticketLinked: boolean
  /** The organization's releases, latest first, for "Resolved in release…". */
  releases: string[]
  /** The current resolution's release, or "the next release" while it waits for one. */
  fix: { inRelease: string | null; nextRelease: boolean }
}) {
  const { result, pending, onSubmit } = useIssueAction((form) => changeStatusAction(issueId, null, form))
  // The status also changes without this form (linking a ticket, another member): the select
  // follows the page's status whenever that changes, keeping this form's own message.
  const current = choiceOf(status, fix)
  const [value, setValue] = useState<Choice>(current)
  const [release, setRelease] = useState(fix.inRelease ?? releases[0] ?? '')
  const [shown, setShown] = useState(`${current} ${fix.inRelease}`)
  if (shown !== `${current} ${fix.inRelease}`) {
    setShown(`${current} ${fix.inRelease}`)
    setValue(current)
    setRelease(fix.inRelease ?? releases[0] ?? '')
  }
  // A release named earlier stays choosable even when it is no longer among the latest.
  const releaseOptions =
    fix.inRelease && !releases.includes(fix.inRelease) ? [fix.inRelease, ...releases] : releases
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
            onChange={(event) => setValue(event.target.value as Choice)}
            aria-describedby="issue-status-hints"
          >
            {ISSUE_STATUS_CHOICES.filter((s) => s !== 'ticket_created' || ticketLinked || s === status).map(
              (s) => (
                <option key={s} value={s}>
                  {ISSUE_STATUS_LABELS[s]}
                </option>
              ),
            )}
            {releaseOptions.length > 0 ? (
              <option value={RESOLVE_IN_RELEASE}>{RESOLVE_CHOICE_LABELS[RESOLVE_IN_RELEASE]}</option>
            ) : null}
            <option value={RESOLVE_IN_NEXT_RELEASE}>{RESOLVE_CHOICE_LABELS[RESOLVE_IN_NEXT_RELEASE]}</option>
          </select>
        </div>
        {value === RESOLVE_IN_RELEASE ? (
          <div className="field">
            <label htmlFor="issue-fix-release">Release with the fix</label>
            <select
              className="select"
              id="issue-fix-release"
              name="inRelease"
              value={release}
              onChange={(event) => setRelease(event.target.value)}
            >
              {releaseOptions.map((version) => (
                <option key={version} value={version}>
                  {version}
                </option>
              ))}
            </select>
          </div>
        ) : null}
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
        {([RESOLVE_IN_RELEASE, RESOLVE_IN_NEXT_RELEASE] as const).map((choice) => (
          <li key={choice}>
            <strong>{RESOLVE_CHOICE_LABELS[choice]}</strong>: {RESOLVE_CHOICE_HINTS[choice]}
          </li>
        ))}
      </ul>
    </form>
  )
}
