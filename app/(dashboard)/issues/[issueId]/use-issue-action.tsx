'use client'

import { type FormEvent, useState, useTransition } from 'react'
import type { ActionResult } from '@/lib/http/actions'

/**
 * Runs a server action from a form's submit without React's automatic form reset, so a
 * refused value stays in its field for the user to correct.
 */
export function useIssueAction(run: (form: FormData) => Promise<ActionResult>) {
  const [result, setResult] = useState<ActionResult | null>(null)
  const [pending, start] = useTransition()
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    start(async () => setResult(await run(form)))
  }
  const runNow = (form: FormData) => start(async () => setResult(await run(form)))
  return { result, pending, onSubmit, runNow }
}

export function ActionMessage({ result }: { result: ActionResult | null }) {
  if (!result) return null
  return result.ok ? (
    <p className="alert alert-ok" role="status">
      {result.message}
    </p>
  ) : (
    <p className="alert alert-error" role="alert">
      {result.error}
    </p>
  )
}
