'use client'

import { useActionState, useEffect, useState } from 'react'
import { BULK_STATUS_MAX } from '@/lib/issues/bulk-limit'
import { ActionMessage } from './[issueId]/use-issue-action'
import { resolveSelectedAction } from './actions'
import { BULK_FORM_ID } from './list-params'

const boxes = () =>
  Array.from(document.querySelectorAll<HTMLInputElement>(`input[form="${BULK_FORM_ID}"][name="issue"]`))

/**
 * The list's bulk action. The row checkboxes live in the server-rendered table and join this
 * form through their `form` attribute; this counts them as they change.
 */
export function BulkResolve() {
  const [result, action, pending] = useActionState(resolveSelectedAction, null)
  const [selected, setSelected] = useState(0)
  useEffect(() => {
    const count = () => setSelected(boxes().filter((box) => box.checked).length)
    count()
    document.addEventListener('change', count)
    return () => document.removeEventListener('change', count)
  }, [])
  // After a resolve the list re-renders; checkboxes of rows that stay start unchecked again.
  useEffect(() => {
    if (result?.ok) {
      for (const box of boxes()) box.checked = false
      setSelected(0)
    }
  }, [result])
  return (
    <form id={BULK_FORM_ID} action={action} className="toolbar" aria-label="Bulk actions">
      <button className="btn btn-small" type="submit" disabled={pending || selected === 0}>
        {pending ? 'Resolving…' : 'Resolve selected'}
      </button>
      <span className="muted" aria-live="polite">
        {selected > 0
          ? `${selected} selected`
          : `Select up to ${BULK_STATUS_MAX} issues to resolve them at once.`}
      </span>
      <ActionMessage result={result} />
    </form>
  )
}

/** Checks or clears every row of the page. */
export function SelectAll() {
  return (
    <input
      type="checkbox"
      aria-label="Select all issues on this page"
      onChange={(event) => {
        for (const box of boxes()) box.checked = event.target.checked
        // The row boxes changed from script: tell the counter.
        document.dispatchEvent(new Event('change'))
      }}
    />
  )
}
