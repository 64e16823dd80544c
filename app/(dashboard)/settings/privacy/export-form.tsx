'use client'

import { useActionState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { ActionResult } from '@/lib/http/actions'
import { requestExportAction } from './export-actions'

export function ExportForm() {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(requestExportAction, null)
  return (
    <form action={action} className="inline-form" aria-label="Export one person’s data">
      <div className="field">
        <label htmlFor="export-identifier">Named by</label>
        <select className="input" id="export-identifier" name="identifier" defaultValue="email">
          <option value="email">E-mail</option>
          <option value="userId">User id</option>
          <option value="anonymousId">Anonymous id</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="export-value">Identifier</label>
        <input className="input" id="export-value" name="value" required maxLength={512} autoComplete="off" />
      </div>
      <button className="btn" type="submit" disabled={pending}>
        {pending ? 'Requesting…' : 'Request export'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
