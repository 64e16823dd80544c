'use client'

import { useActionState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { Plan } from '@/db/schema'
import type { ActionResult } from '@/lib/http/actions'
import { changePlanAction } from '../actions'
import styles from './settings.module.css'

/** Shown to instance operators only; the action checks the role again. */
export function PlanForm({ plan, plans }: { plan: Plan; plans: readonly Plan[] }) {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(changePlanAction, null)
  return (
    <form action={action} className="inline-form" aria-label="Change the plan">
      <div className={`field ${styles.fieldGrow}`}>
        <label htmlFor="organization-plan">Plan</label>
        <select className="input" id="organization-plan" name="plan" defaultValue={plan}>
          {plans.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </div>
      <button className="btn" type="submit" disabled={pending}>
        {pending ? 'Saving…' : 'Change plan'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
