'use client'

import { useState, useTransition } from 'react'
import { type ActionResult, revokeWebhookAction, sendTestWebhookAction } from './actions'

export function EndpointActions({
  endpointId,
  name,
  events,
  eventTypes,
}: {
  endpointId: string
  name: string
  events: string[]
  /** Every event type, from the page: lib/webhooks/events.ts is server code. */
  eventTypes: readonly string[]
}) {
  const [pending, start] = useTransition()
  const [event, setEvent] = useState(events[0] ?? eventTypes[0] ?? '')
  const [result, setResult] = useState<ActionResult | null>(null)
  return (
    <>
      <select
        className="input"
        aria-label={`Event type to test on ${name}`}
        value={event}
        onChange={(e) => setEvent(e.target.value)}
      >
        {eventTypes.map((e) => (
          <option key={e} value={e}>
            {e}
          </option>
        ))}
      </select>
      <button
        className="btn"
        type="button"
        disabled={pending}
        onClick={() => start(async () => setResult(await sendTestWebhookAction(endpointId, event)))}
      >
        {pending ? 'Working…' : 'Send test'}
      </button>
      <button
        className="btn"
        type="button"
        disabled={pending}
        onClick={() =>
          start(async () => {
            if (!window.confirm(`Revoke ${name}? Deliveries stop at once.`)) return
            setResult(await revokeWebhookAction(endpointId))
          })
        }
      >
        Revoke
      </button>
      {result ? (
        <span className="muted" role={result.ok ? 'status' : 'alert'}>
          {result.ok ? result.message : result.error}
        </span>
      ) : null}
    </>
  )
}
