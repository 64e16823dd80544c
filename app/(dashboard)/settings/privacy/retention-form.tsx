'use client'

import { useActionState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { ActionResult } from '@/lib/http/actions'
import { changeRetentionAction } from './actions'

export function RetentionForm({ days, min, max }: { days: number; min: number; max: number }) {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(changeRetentionAction, null)
  return (
    <form action={action} className="inline-form" aria-label="Change how long recordings are kept">
      <div className="field">
        <label htmlFor="retention-days">Days to keep recordings</label>
        <input
          className="input"
          id="retention-days"
          name="days"
          type="number"
          inputMode="numeric"
          min={min}
          max={max}
          step={1}
          defaultValue={days}
          required
        />
      </div>
      <button className="btn" type="submit" disabled={pending}>
        {pending ? 'Saving…' : 'Save'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
