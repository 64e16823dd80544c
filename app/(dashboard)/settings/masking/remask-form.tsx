'use client'

import { useActionState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { ActionResult } from '@/lib/http/actions'
import { requestRemaskingAction } from './actions'

export function RemaskForm() {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(requestRemaskingAction, null)
  return (
    <form action={action} aria-label="Re-mask stored sessions">
      <div className="field">
        <label htmlFor="remask-selectors">Selectors (one a line)</label>
        <textarea className="input" id="remask-selectors" name="selectors" rows={3} />
      </div>
      <div className="field">
        <label htmlFor="remask-patterns">Patterns (one a line)</label>
        <textarea className="input" id="remask-patterns" name="patterns" rows={3} autoComplete="off" />
      </div>
      <div className="inline-form">
        <div className="field">
          <label htmlFor="remask-from">Sessions started from (UTC)</label>
          <input className="input" id="remask-from" name="from" type="datetime-local" />
        </div>
        <div className="field">
          <label htmlFor="remask-to">until (UTC)</label>
          <input className="input" id="remask-to" name="to" type="datetime-local" />
        </div>
      </div>
      <label>
        <input type="checkbox" name="updateRecorder" defaultChecked /> Also mask these in new recordings from
        now on
      </label>
      <button className="btn btn-danger" type="submit" disabled={pending}>
        {pending ? 'Starting…' : 'Re-mask'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
