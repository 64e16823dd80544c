'use client'

import { useRef, useState } from 'react'
import styles from './reproduction.module.css'
import { ScrollingText } from './scrolling-text'

/**
 * The generated test as a code block with a Copy button. Where the clipboard API is unavailable
 * (plain http, denied permission) the code is selected instead, so one keystroke copies it.
 */
export function ReproductionCode({ code, filename }: { code: string; filename: string }) {
  const block = useRef<HTMLPreElement>(null)
  const [status, setStatus] = useState('')

  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard')
      await navigator.clipboard.writeText(code)
      setStatus('Copied.')
    } catch {
      const selection = window.getSelection()
      if (block.current && selection) selection.selectAllChildren(block.current)
      setStatus('Selected: press Ctrl+C (⌘C on a Mac) to copy.')
    }
  }

  return (
    <div className={styles.code}>
      <div className={styles.toolbar}>
        <code>{filename}</code>
        <button className="btn btn-small" type="button" onClick={copy} aria-label={`Copy ${filename}`}>
          Copy
        </button>
        <span className="muted" role="status" aria-live="polite">
          {status}
        </span>
      </div>
      <ScrollingText className={styles.pre} ref={block} testId="reproduction-test">
        <code>{code}</code>
      </ScrollingText>
    </div>
  )
}
