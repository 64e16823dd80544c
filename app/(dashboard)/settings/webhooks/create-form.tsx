'use client'

import { useActionState } from 'react'
import styles from '../_components/settings.module.css'
import { type CreateResult, createWebhookAction } from './actions'

/**
 * The create form; the signing secret is shown here once, right after creation. The page hands
 * over the event types: their module (lib/webhooks/events.ts) is server code.
 */
export function CreateWebhookForm({
  disabled,
  eventTypes,
}: {
  disabled: boolean
  eventTypes: readonly string[]
}) {
  const [state, action, pending] = useActionState<CreateResult | null, FormData>(createWebhookAction, null)
  return (
    <form action={action}>
      {state?.ok ? (
        <div className="alert alert-info" role="status" data-testid="webhook-secret">
          <p>
            Endpoint <strong>{state.name}</strong> created. Copy its signing secret now; it is not shown
            again:
          </p>
          <code>{state.secret}</code>
        </div>
      ) : null}
      {state && !state.ok ? (
        <div className="alert alert-error" role="alert">
          {state.error}
        </div>
      ) : null}
      <label className="field">
        Name
        <input className="input" name="name" required maxLength={64} disabled={disabled} />
      </label>
      <label className="field">
        URL (HTTPS)
        <input
          className="input"
          name="url"
          type="url"
          required
          maxLength={2048}
          pattern="https://.*"
          placeholder="https://example.com/webhooks/session-replay"
          disabled={disabled}
        />
      </label>
      <fieldset className={styles.choices}>
        <legend>Events</legend>
        {eventTypes.map((event) => (
          <label key={event}>
            <input
              type="checkbox"
              name="events"
              value={event}
              defaultChecked={event === 'issue.created'}
              disabled={disabled}
            />{' '}
            <code>{event}</code>
          </label>
        ))}
      </fieldset>
      <button className="btn btn-primary" type="submit" disabled={disabled || pending}>
        {pending ? 'Creating…' : 'Create endpoint'}
      </button>
    </form>
  )
}
