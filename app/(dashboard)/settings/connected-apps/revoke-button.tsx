'use client'

import { useState, useTransition } from 'react'
import { revokeConnectedAppAction } from './actions'

export function RevokeButton({ consentId, clientName }: { consentId: string; clientName: string }) {
  const [pending, start] = useTransition()
  const [error, setError] = useState<string | null>(null)
  return (
    <>
      <button
        className="btn"
        type="button"
        disabled={pending}
        aria-label={`Disconnect ${clientName}`}
        onClick={() =>
          start(async () => {
            if (!window.confirm(`Disconnect ${clientName}? Its access stops at once.`)) return
            const result = await revokeConnectedAppAction(consentId)
            setError(result.ok ? null : result.error)
          })
        }
      >
        {pending ? 'Disconnecting…' : 'Disconnect'}
      </button>
      {error ? (
        <span className="muted" role="alert">
          {error}
        </span>
      ) : null}
    </>
  )
}
