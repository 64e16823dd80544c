'use client'

import { useActionState } from 'react'
import { INTEGRATION_LIMITS } from '@/lib/integrations/limits'
import { type ConnectResult, connectIntegrationAction } from './actions'

type Kind = 'slack' | 'linear' | 'github'

const TITLES: Record<Kind, string> = { slack: 'Slack', linear: 'Linear', github: 'GitHub Issues' }

function Fields({ kind, disabled }: { kind: Kind; disabled: boolean }) {
  if (kind === 'slack')
    return (
      <label className="field">
        Incoming-webhook URL
        <input
          className="input"
          name="webhookUrl"
          type="url"
          required
          maxLength={512}
          autoComplete="off"
          placeholder="https://hooks.slack.com/services/…"
          disabled={disabled}
        />
      </label>
    )
  if (kind === 'linear')
    return (
      <>
        <label className="field">
          API key
          <input
            className="input"
            name="apiKey"
            type="password"
            required
            maxLength={INTEGRATION_LIMITS.secret}
            autoComplete="off"
            placeholder="lin_api_…"
            disabled={disabled}
          />
        </label>
        <label className="field">
          Team (key or id)
          <input
            className="input"
            name="team"
            required
            maxLength={INTEGRATION_LIMITS.team}
            placeholder="ENG"
            disabled={disabled}
          />
        </label>
      </>
    )
  return (
    <>
      <label className="field">
        Fine-grained token
        <input
          className="input"
          name="token"
          type="password"
          required
          maxLength={INTEGRATION_LIMITS.secret}
          autoComplete="off"
          placeholder="github_pat_…"
          disabled={disabled}
        />
      </label>
      <label className="field">
        Repository
        <input
          className="input"
          name="repository"
          required
          maxLength={INTEGRATION_LIMITS.repository}
          placeholder="owner/repo"
          disabled={disabled}
        />
      </label>
    </>
  )
}

/** One provider's connect form; the secret is checked with the provider, stored encrypted, never shown again. */
export function ConnectForm({ kind, disabled }: { kind: Kind; disabled: boolean }) {
  const [state, action, pending] = useActionState<ConnectResult | null, FormData>(
    connectIntegrationAction.bind(null, kind),
    null,
  )
  return (
    <form action={action} aria-label={`Connect ${TITLES[kind]}`} data-testid={`connect-${kind}`}>
      <h3>{TITLES[kind]}</h3>
      {state ? (
        <p className={state.ok ? 'alert alert-ok' : 'alert alert-error'} role={state.ok ? 'status' : 'alert'}>
          {state.ok ? state.message : state.error}
        </p>
      ) : null}
      <label className="field">
        Name
        <input
          className="input"
          name="name"
          required
          maxLength={INTEGRATION_LIMITS.name}
          defaultValue={TITLES[kind]}
          disabled={disabled}
        />
      </label>
      <Fields kind={kind} disabled={disabled} />
      <button className="btn btn-primary" type="submit" disabled={disabled || pending}>
        {pending ? 'Connecting…' : `Connect ${TITLES[kind]}`}
      </button>
    </form>
  )
}
