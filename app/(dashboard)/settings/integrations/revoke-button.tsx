'use client'

import { useState, useTransition } from 'react'
import { type ConnectResult, revokeIntegrationAction } from './actions'

export function RevokeIntegrationButton({ integrationId, name }: { integrationId: string; name: string }) {
  const [pending, start] = useTransition()
  const [result, setResult] = useState<ConnectResult | null>(null)
  return (
    <>
      <button
        className="btn btn-danger"
        type="button"
        disabled={pending}
        onClick={() =>
          start(async () => {
            if (!window.confirm(`Disconnect ${name}? Nothing more is sent through it.`)) return
            setResult(await revokeIntegrationAction(integrationId))
          })
        }
      >
        {pending ? 'Working…' : 'Disconnect'}
      </button>
      {result ? (
        <span className="muted" role={result.ok ? 'status' : 'alert'}>
          {result.ok ? result.message : result.error}
        </span>
      ) : null}
    </>
  )
}
