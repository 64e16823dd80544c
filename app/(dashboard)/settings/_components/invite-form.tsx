'use client'

import { useActionState } from 'react'
import { createInvitationAction, type InvitationResult } from '../actions'
import { CopyField } from './copy-field'
import styles from './settings.module.css'

/** The invitation link is shown here once: only its hash is stored. */
export function InviteForm({ disabled }: { disabled: boolean }) {
  const [state, action, pending] = useActionState<InvitationResult | null, FormData>(
    createInvitationAction,
    null,
  )
  return (
    <>
      <form action={action} className="inline-form" aria-label="Invite someone">
        <div className={`field ${styles.fieldGrow}`}>
          <label htmlFor="invite-email">E-mail address</label>
          <input
            className="input"
            id="invite-email"
            name="email"
            type="email"
            autoComplete="off"
            required
            maxLength={254}
            disabled={disabled}
          />
        </div>
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select className="select" id="invite-role" name="role" defaultValue="member" disabled={disabled}>
            <option value="member">Member (read-only settings)</option>
            <option value="owner">Owner (manages settings)</option>
          </select>
        </div>
        <button className="btn btn-accent" type="submit" disabled={disabled || pending}>
          {pending ? 'Creating link…' : 'Create invitation link'}
        </button>
      </form>
      {state && !state.ok ? (
        <p className="alert alert-error" role="alert">
          {state.error}
        </p>
      ) : null}
      {state?.ok ? (
        <div className={`alert alert-ok ${styles.created}`} role="status">
          <p>
            Invitation for <strong>{state.email}</strong> ({state.role}) created.
            {state.replacedEarlier ? ' The earlier link for this address no longer works.' : ''} This service
            does not send e-mail: copy the link and send it to them yourself. It works once and expires in{' '}
            {state.expiresInDays} days. It is shown only now.
          </p>
          <CopyField label="Invitation link" value={state.url} testId="invitation-link" />
        </div>
      ) : null}
    </>
  )
}
