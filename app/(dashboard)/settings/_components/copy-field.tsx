'use client'

import { useId, useRef, useState } from 'react'
import styles from './settings.module.css'

/**
 * Rows for a textarea that shows `value` whole: long lines wrap, so each counts for as many
 * rows as it takes at a phone's width. Browsers with `field-sizing: content` (the stylesheet)
 * fit the box to the text exactly; this is the floor for the others.
 */
function rowsFor(value: string): number {
  const rows = value.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / 40)), 0)
  return Math.min(16, rows)
}

/**
 * A value to copy (a key, a link, a snippet): a read-only field that shows it whole, and a Copy
 * button. Where the clipboard API is unavailable (plain http, denied permission) the text is
 * selected instead, so one keystroke copies it.
 */
export function CopyField({
  label,
  value,
  multiline = false,
  testId,
}: {
  label: string
  value: string
  multiline?: boolean
  testId?: string
}) {
  const id = useId()
  const field = useRef<HTMLInputElement & HTMLTextAreaElement>(null)
  const [status, setStatus] = useState<string>('')

  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard')
      await navigator.clipboard.writeText(value)
      setStatus('Copied.')
    } catch {
      field.current?.focus()
      field.current?.select()
      setStatus('Selected: press Ctrl+C (⌘C on a Mac) to copy.')
    }
  }

  const shared = {
    id,
    ref: field,
    readOnly: true,
    value,
    spellCheck: false,
    onFocus: (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
      event.currentTarget.select(),
    'data-testid': testId,
  }
  return (
    <div className={`field ${styles.copyField}`}>
      <label htmlFor={id}>{label}</label>
      <div className={styles.copyRow}>
        {multiline ? (
          <textarea {...shared} className={`textarea ${styles.copyValue}`} rows={rowsFor(value)} />
        ) : (
          <input {...shared} className={`input ${styles.copyValue}`} />
        )}
        <button className="btn btn-small" type="button" onClick={copy} aria-label={`Copy ${label}`}>
          Copy
        </button>
      </div>
      <span className="muted" role="status" aria-live="polite">
        {status}
      </span>
    </div>
  )
}
