'use client'

import { startTransition, useActionState, useState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { NetworkDetailPolicy } from '@/db/schema'
import type { ActionResult } from '@/lib/http/actions'
import { MAX_REDACT_KEY_CHARS, MAX_REDACT_KEYS, POLICY_LABELS } from '@/lib/orgs/network-policy-input'
import { changeNetworkPolicyAction } from '../actions'
import styles from './settings.module.css'

/** Owners only; the action checks the role again (a member's form is disabled). */
export function NetworkPolicyForm(props: {
  policy: NetworkDetailPolicy
  redactKeys: string[]
  disabled: boolean
}) {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(
    changeNetworkPolicyAction,
    null,
  )
  const [policy, setPolicy] = useState(props.policy)
  const [keys, setKeys] = useState(props.redactKeys.join(', '))
  return (
    <form
      action={action}
      // A form action resets the form afterwards, radios included, so a refused save would lose
      // what was typed; submitting in a transition ourselves keeps it (`action` still serves the
      // form before hydration).
      onSubmit={(event) => {
        event.preventDefault()
        const data = new FormData(event.currentTarget)
        startTransition(() => action(data))
      }}
      aria-label="Network details policy"
    >
      <fieldset className={styles.choices} disabled={props.disabled}>
        <legend>Captured headers and bodies</legend>
        {(Object.keys(POLICY_LABELS) as NetworkDetailPolicy[]).map((choice) => (
          <label key={choice}>
            <input
              type="radio"
              name="policy"
              value={choice}
              checked={policy === choice}
              onChange={() => setPolicy(choice)}
            />
            {POLICY_LABELS[choice]}
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor="network-redact-keys">More JSON key words to redact</label>
        <textarea
          className="textarea"
          id="network-redact-keys"
          name="redactKeys"
          rows={3}
          value={keys}
          onChange={(event) => setKeys(event.target.value)}
          // The server bounds it exactly; this only keeps a paste from being absurd.
          maxLength={MAX_REDACT_KEYS * (MAX_REDACT_KEY_CHARS + 8)}
          disabled={props.disabled}
          aria-describedby="network-redact-keys-help"
        />
        <p className="muted" id="network-redact-keys-help">
          Separated by commas or new lines; at most {MAX_REDACT_KEYS} words of at most {MAX_REDACT_KEY_CHARS}{' '}
          letters, digits, _ or -. Values of JSON keys named with these words are redacted too, beside the
          built-in list (password, token, secret, …).
        </p>
      </div>
      <button className="btn" type="submit" disabled={props.disabled || pending}>
        {pending ? 'Saving…' : 'Save network details policy'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
