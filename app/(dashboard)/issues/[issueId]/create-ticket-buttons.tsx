'use client'

import { createTicketAction } from './actions'
import { ActionMessage, useIssueAction } from './use-issue-action'

const LABELS = { linear: 'Create Linear issue', github: 'Create GitHub issue' } as const

/**
 * One button per tracker the organization connected (Settings → Integrations); shown only while
 * the issue has no ticket. The created ticket then shows in the ticket form below, linked.
 */
export function CreateTicketButtons({
  issueId,
  providers,
  linked,
}: {
  issueId: string
  providers: readonly ('linear' | 'github')[]
  /** The issue has a ticket: no buttons, but the message of the creation that linked it stays. */
  linked: boolean
}) {
  const linear = useIssueAction(() => createTicketAction(issueId, 'linear'))
  const github = useIssueAction(() => createTicketAction(issueId, 'github'))
  const actions = { linear, github }
  const pending = linear.pending || github.pending
  if (providers.length === 0) return null
  return (
    <div data-testid="create-ticket">
      <ActionMessage result={linear.result ?? github.result} />
      {linked ? null : (
        <div className="toolbar">
          {providers.map((provider) => (
            <button
              key={provider}
              className="btn btn-accent"
              type="button"
              disabled={pending}
              onClick={() => actions[provider].runNow(new FormData())}
            >
              {actions[provider].pending ? 'Creating…' : LABELS[provider]}
            </button>
          ))}
        </div>
      )}
    </div>
  )
}
