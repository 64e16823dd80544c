'use client'

import { type FormEvent, useState } from 'react'
import { TICKET_LIMITS } from '@/lib/issues/ticket-limits'
import { providerOfTicketUrl } from '@/lib/issues/ticket-provider'

/**
 * The ticket link asked for by "Link a ticket": its URL, and the tracker guessed from the URL
 * (editable). Submitting it is the only thing that marks the issue "In a ticket".
 */
export function QuickLinkForm({
  onSubmit,
  pending,
}: {
  onSubmit: (event: FormEvent<HTMLFormElement>) => void
  pending: boolean
}) {
  const [provider, setProvider] = useState('')
  // Follows the URL until the member types a provider of their own.
  const [guessing, setGuessing] = useState(true)
  return (
    <form onSubmit={onSubmit} aria-label="Link a ticket" data-testid="quick-link-ticket">
      <div className="field">
        <label htmlFor="quick-ticket-url">Ticket URL</label>
        <input
          className="input"
          id="quick-ticket-url"
          name="url"
          type="url"
          required
          // biome-ignore lint/a11y/noAutofocus: opened by the member's own click to type the link
          autoFocus
          maxLength={TICKET_LIMITS.url}
          placeholder="https://github.com/acme/shop/issues/12"
          onChange={(event) => {
            if (guessing) setProvider(providerOfTicketUrl(event.target.value) ?? '')
          }}
        />
      </div>
      <div className="field">
        <label htmlFor="quick-ticket-provider">Provider</label>
        <input
          className="input"
          id="quick-ticket-provider"
          name="provider"
          list="ticket-providers"
          required
          maxLength={TICKET_LIMITS.provider}
          value={provider}
          onChange={(event) => {
            setGuessing(false)
            setProvider(event.target.value)
          }}
          placeholder="GitHub, Linear, Jira…"
        />
      </div>
      <button className="btn btn-small btn-accent" type="submit" disabled={pending}>
        {pending ? 'Linking…' : 'Link ticket'}
      </button>
    </form>
  )
}
