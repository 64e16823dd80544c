'use client'

import { startTransition, useActionState, useEffect, useState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { ActionResult } from '@/lib/http/actions'
import { createSavedSearchAction, updateSavedSearchAction } from './actions'

/**
 * Saves a new search, or changes `existing`. Inputs are controlled and the form is submitted by
 * hand, so a refused query stays in the box for the user to fix.
 */
export function SavedSearchForm({
  existing,
  initialQuery = '',
}: {
  existing?: { id: string; name: string; query: string }
  initialQuery?: string
}) {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(
    existing ? updateSavedSearchAction : createSavedSearchAction,
    null,
  )
  const [name, setName] = useState(existing?.name ?? '')
  const [query, setQuery] = useState(existing?.query ?? initialQuery)
  useEffect(() => {
    if (state?.ok && !existing) {
      setName('')
      setQuery('')
    }
  }, [state, existing])
  const prefix = existing ? `saved-${existing.id}` : 'saved-new'
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        const data = new FormData(event.currentTarget)
        startTransition(() => action(data))
      }}
      aria-label={existing ? `Change the saved search ${existing.name}` : 'Save a search'}
    >
      {existing ? <input type="hidden" name="id" value={existing.id} /> : null}
      <div className="field">
        <label htmlFor={`${prefix}-name`}>Name</label>
        <input
          className="input"
          id={`${prefix}-name`}
          name="name"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-query`}>Query</label>
        <textarea
          className="textarea"
          id={`${prefix}-query`}
          name="query"
          required
          maxLength={1000}
          rows={2}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-describedby={`${prefix}-query-hint`}
          spellCheck={false}
        />
        <span className="muted" id={`${prefix}-query-hint`}>
          In the search language, for example <code>click.text = Pay then error within 60s</code>.
        </span>
      </div>
      <button className="btn btn-accent" type="submit" disabled={pending}>
        {pending ? 'Saving…' : existing ? 'Save changes' : 'Save search'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
