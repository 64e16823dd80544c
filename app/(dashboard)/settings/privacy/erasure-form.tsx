'use client'

import { useActionState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { ActionResult } from '@/lib/http/actions'
import { requestErasureAction } from './erasure-actions'

export function ErasureForm() {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(requestErasureAction, null)
  return (
    <form action={action} className="inline-form" aria-label="Erase one person">
      <div className="field">
        <label htmlFor="erasure-identifier">Named by</label>
        <select className="input" id="erasure-identifier" name="identifier" defaultValue="email">
          <option value="email">E-mail</option>
          <option value="userId">User id</option>
          <option value="anonymousId">Anonymous id</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="erasure-value">Identifier</label>
        <input
          className="input"
          id="erasure-value"
          name="value"
          required
          maxLength={512}
          autoComplete="off"
        />
      </div>
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
