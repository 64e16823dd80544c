'use client'

import { useState, useTransition } from 'react'
import { type ConnectResult, setTicketShareLinksAction } from './actions'

/**
 * Off by default: a share link lets anyone who can read the ticket watch the replay without an
 * account (docs/sharing.md#ticket-links), which a public GitHub repository would make everyone.
 */
export function TicketShareToggle({ enabled }: { enabled: boolean }) {
  const [pending, start] = useTransition()
  const [result, setResult] = useState<ConnectResult | null>(null)
  return (
    <>
      <label>
        <input
          type="checkbox"
          checked={enabled}
          disabled={pending}
          data-testid="ticket-share-links"
          onChange={(e) => {
            const next = e.currentTarget.checked
            start(async () => setResult(await setTicketShareLinksAction(next)))
          }}
        />{' '}
        Link Linear and GitHub tickets to a share link of the issue's replay (works for 30 days without an
        account; anyone who can read the ticket can watch it)
      </label>
      {result ? (
        <p className="muted" role={result.ok ? 'status' : 'alert'}>
          {result.ok ? result.message : result.error}
        </p>
      ) : null}
    </>
  )
}
