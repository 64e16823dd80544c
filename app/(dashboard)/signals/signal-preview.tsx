'use client'

import { useState, useTransition } from 'react'
import { type PreviewSignalResult, previewSignalAction } from './preview-action'
import styles from './signals.module.css'

/**
 * Before saving: how the prompt is read and how many recent sessions it matches (issue 15).
 * Runs on the button only, so typing costs the server nothing.
 */
export function SignalPreview({ prompt, aiConfigured }: { prompt: string; aiConfigured: boolean }) {
  const [result, setResult] = useState<{ prompt: string; answer: PreviewSignalResult } | null>(null)
  const [pending, startTransition] = useTransition()
  const ready = prompt.trim().length >= 3
  const preview = () =>
    startTransition(async () => {
      const answer = await previewSignalAction(prompt)
      setResult({ prompt, answer })
    })
  const answer = result?.answer
  return (
    <div className={styles.preview}>
      <button className="btn" type="button" onClick={preview} disabled={!ready || pending}>
        {pending ? 'Previewing…' : 'Preview matches'}
      </button>
      <div aria-live="polite" data-testid="signal-preview">
        {answer && !answer.ok ? (
          <p className="alert alert-error" role="alert">
            {answer.error}
          </p>
        ) : null}
        {answer?.ok ? (
          <div className={styles.previewResult}>
            {result?.prompt !== prompt ? (
              <p className="muted">The prompt changed since this preview; preview again to update it.</p>
            ) : null}
            {answer.preview.checkable ? (
              <>
                <p>A session matches when all of these hold:</p>
                <ul data-testid="signal-preview-reading">
                  {answer.preview.conditions.map((line) => (
                    <li key={line}>{line}</li>
                  ))}
                </ul>
                <p data-testid="signal-preview-count">
                  {answer.preview.checked === 0
                    ? `No analysed sessions in the last ${answer.preview.days} days to try it on yet.`
                    : `Matches ${answer.preview.matched} of the latest ${answer.preview.checked} analysed ${answer.preview.checked === 1 ? 'session' : 'sessions'} of the last ${answer.preview.days} days.`}
                </p>
              </>
            ) : (
              <p className="alert alert-info" data-testid="signal-preview-count">
                Nothing in this prompt can be checked by the keyword rules, so it would match no session. Use
                the words under “How prompts are matched”.
              </p>
            )}
            {aiConfigured ? (
              <p className="muted">
                New sessions are judged by the AI model; this preview, like the scan of the last 30 days, uses
                the keyword rules.
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
    </div>
  )
}
