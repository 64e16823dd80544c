'use client'

import { useActionState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { ActionResult } from '@/lib/http/actions'
import { renameOrganizationAction } from '../actions'
import styles from './settings.module.css'

export function RenameForm({ name, disabled }: { name: string; disabled: boolean }) {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(
    renameOrganizationAction,
    null,
  )
  return (
    <form action={action} className="inline-form" aria-label="Rename the organization">
      <div className={`field ${styles.fieldGrow}`}>
        <label htmlFor="organization-name">Organization name</label>
        <input
          className="input"
          id="organization-name"
          name="name"
          defaultValue={name}
          required
          maxLength={100}
          disabled={disabled}
        />
      </div>
      <button className="btn" type="submit" disabled={disabled || pending}>
        {pending ? 'Saving…' : 'Rename'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
