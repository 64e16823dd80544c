'use client'

import { useState, useTransition } from 'react'
import type { ActionResult } from '@/lib/http/actions'
import { setSessionPinAction } from './actions'

/** Pin / Unpin: keeps the session past retention up to the pin maximum, or lets it go again. */
export function PinButton({ sessionId, pinned }: { sessionId: string; pinned: boolean }) {
  const [pending, start] = useTransition()
  const [result, setResult] = useState<ActionResult | null>(null)
  return (
    <span className="toolbar">
      <button
        className="btn btn-small"
        type="button"
        disabled={pending}
        aria-pressed={pinned}
        data-testid="pin-session"
        title="A pinned session is kept past the organization's retention, up to the pin maximum"
        onClick={() => start(async () => setResult(await setSessionPinAction(sessionId, !pinned)))}
      >
        {pending ? 'Saving…' : pinned ? 'Unpin' : 'Pin'}
      </button>
      {result ? (
        <span className="muted" role={result.ok ? 'status' : 'alert'}>
          {result.ok ? result.message : result.error}
        </span>
      ) : null}
    </span>
  )
}
