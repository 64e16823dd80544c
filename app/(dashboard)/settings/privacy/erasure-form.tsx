'use client'

import { useActionState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { ActionResult } from '@/lib/http/actions'
import { PersonFields } from '../_components/privacy-requests'
import { requestErasureAction } from './erasure-actions'

export function ErasureForm() {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(requestErasureAction, null)
  return (
    <form action={action} className="inline-form" aria-label="Erase one person">
      <PersonFields idPrefix="erasure" />
      <label>
        <input type="checkbox" name="confirm" required /> Erase for good
      </label>
      <button className="btn btn-danger" type="submit" disabled={pending}>
        {pending ? 'Requesting…' : 'Erase'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
