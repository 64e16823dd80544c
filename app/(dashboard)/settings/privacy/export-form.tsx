'use client'

import { useActionState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { ActionResult } from '@/lib/http/actions'
import { PersonFields } from '../_components/privacy-requests'
import { requestExportAction } from './export-actions'

export function ExportForm() {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(requestExportAction, null)
  return (
    <form action={action} className="inline-form" aria-label="Export one person’s data">
      <PersonFields idPrefix="export" />
      <button className="btn" type="submit" disabled={pending}>
        {pending ? 'Requesting…' : 'Request export'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
