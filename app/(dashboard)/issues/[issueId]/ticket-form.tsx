'use client'

import { ISSUE_STATUS_LABELS } from '@/lib/issues/labels'
import { TICKET_LIMITS } from '@/lib/issues/ticket-limits'
import { webHref } from '../format'
import { linkTicketAction, unlinkTicketAction } from './actions'
import { ActionMessage, useIssueAction } from './use-issue-action'

const PROVIDERS = ['GitHub', 'GitLab', 'Linear', 'Jira', 'Shortcut', 'Asana', 'Other']

interface Ticket {
  provider: string | null
  url: string | null
  identifier: string | null
}

export function TicketForm({ issueId, ticket }: { issueId: string; ticket: Ticket }) {
  const link = useIssueAction((form) => linkTicketAction(issueId, null, form))
  const unlink = useIssueAction(() => unlinkTicketAction(issueId))
  const linked = Boolean(ticket.url || ticket.provider || ticket.identifier)
  const pending = link.pending || unlink.pending
  return (
    <>
      <ActionMessage result={unlink.result ?? null} />
      {linked ? (
        <div className="toolbar" data-testid="linked-ticket">
          <span>
            {ticket.provider ? `${ticket.provider}: ` : ''}
            {webHref(ticket.url) ? (
              <a href={webHref(ticket.url)} target="_blank" rel="noopener noreferrer">
                {ticket.identifier || ticket.url}
              </a>
            ) : (
              ticket.identifier || ticket.url
            )}
          </span>
          <button
            className="btn btn-small btn-danger"
            type="button"
            disabled={pending}
            onClick={() => {
              if (
                window.confirm(
                  `Remove the linked ticket? An issue “${ISSUE_STATUS_LABELS.ticket_created}” becomes ${ISSUE_STATUS_LABELS.unresolved} again.`,
                )
              )
                unlink.runNow(new FormData())
            }}
          >
            {unlink.pending ? 'Removing…' : 'Remove ticket'}
          </button>
        </div>
      ) : (
        <p className="muted">No ticket linked yet.</p>
      )}
      <form onSubmit={link.onSubmit} aria-label={linked ? 'Replace the ticket' : 'Link a ticket'}>
        <ActionMessage result={link.result} />
        <div className="field">
          <label htmlFor="ticket-provider">Provider</label>
          <input
            className="input"
            id="ticket-provider"
            name="provider"
            list="ticket-providers"
            required
            maxLength={TICKET_LIMITS.provider}
            defaultValue={ticket.provider ?? ''}
            placeholder="GitHub, Linear, Jira…"
          />
          <datalist id="ticket-providers">
            {PROVIDERS.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </div>
        <div className="field">
          <label htmlFor="ticket-url">Ticket URL</label>
          <input
            className="input"
            id="ticket-url"
            name="url"
            type="url"
            required
            maxLength={TICKET_LIMITS.url}
            defaultValue={ticket.url ?? ''}
            placeholder="https://github.com/acme/shop/issues/12"
          />
        </div>
        <div className="field">
          <label htmlFor="ticket-identifier">
            Identifier <span className="muted">(optional)</span>
          </label>
          <input
            className="input"
            id="ticket-identifier"
            name="identifier"
            maxLength={TICKET_LIMITS.identifier}
            defaultValue={ticket.identifier ?? ''}
            placeholder="#12, ENG-42"
          />
        </div>
        <p className="muted">
          Linking a ticket marks the issue “{ISSUE_STATUS_LABELS.ticket_created}”; a resolved issue stays
          resolved.
        </p>
        <button className="btn btn-accent" type="submit" disabled={pending}>
          {link.pending ? 'Saving…' : linked ? 'Replace ticket' : 'Link ticket'}
        </button>
      </form>
    </>
  )
}
