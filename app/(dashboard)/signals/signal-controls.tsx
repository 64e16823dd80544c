'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useRef, useState, useTransition } from 'react'
import type { SignalStatus } from '@/db/schema'
import type { ActionResult } from '@/lib/http/actions'
import { deleteSignalAction, pauseSignalAction, resumeSignalAction } from './actions'
import styles from './signals.module.css'

/**
 * Pause/resume and delete for one signal. Deleting takes a second, explicit step that says
 * what is lost; Escape or Cancel steps back without doing anything.
 */
export function SignalControls({
  signalId,
  name,
  status,
  matchCount,
}: {
  signalId: string
  name: string
  status: SignalStatus
  matchCount: number
}) {
  const router = useRouter()
  const [pending, start] = useTransition()
  const [confirming, setConfirming] = useState(false)
  const [result, setResult] = useState<ActionResult | null>(null)
  const confirmButton = useRef<HTMLButtonElement>(null)
  const deleteButton = useRef<HTMLButtonElement>(null)
  const returnFocus = useRef(false)
  useEffect(() => {
    if (confirming) confirmButton.current?.focus()
    else if (returnFocus.current) {
      // Back to the button that opened the step, so keyboard users keep their place.
      returnFocus.current = false
      deleteButton.current?.focus()
    }
  }, [confirming])

  const cancel = () => {
    returnFocus.current = true
    setConfirming(false)
  }
  const toggle = () =>
    start(async () => {
      setResult(await (status === 'active' ? pauseSignalAction : resumeSignalAction)(signalId))
    })
  const remove = () =>
    start(async () => {
      const outcome = await deleteSignalAction(signalId)
      if (outcome.ok) router.push('/signals?deleted=1')
      else setResult(outcome)
    })

  if (confirming)
    return (
      <fieldset
        className={styles.confirm}
        onKeyDown={(e) => {
          if (e.key === 'Escape') cancel()
        }}
      >
        <legend className="visually-hidden">Confirm deleting {name}</legend>
        <p>
          Delete <strong>{name}</strong> and its {matchCount} {matchCount === 1 ? 'match' : 'matches'}? This
          cannot be undone.
        </p>
        <div className="toolbar">
          <button
            ref={confirmButton}
            className="btn btn-small btn-danger"
            type="button"
            disabled={pending}
            onClick={remove}
          >
            {pending ? 'Deleting…' : 'Delete signal'}
          </button>
          <button className="btn btn-small" type="button" disabled={pending} onClick={cancel}>
            Cancel
          </button>
        </div>
        {result && !result.ok ? (
          <p className="alert alert-error" role="alert">
            {result.error}
          </p>
        ) : null}
      </fieldset>
    )

  return (
    <div className={styles.controls}>
      <div className="toolbar">
        <button
          className="btn btn-small"
          type="button"
          disabled={pending}
          onClick={toggle}
          aria-label={`${status === 'active' ? 'Pause' : 'Resume'} ${name}`}
        >
          {pending ? 'Saving…' : status === 'active' ? 'Pause' : 'Resume'}
        </button>
        <button
          ref={deleteButton}
          className="btn btn-small btn-danger"
          type="button"
          disabled={pending}
          onClick={() => {
            setResult(null)
            setConfirming(true)
          }}
          aria-label={`Delete ${name}`}
        >
          Delete
        </button>
      </div>
      {result ? (
        <p className={result.ok ? 'muted' : 'alert alert-error'} role={result.ok ? 'status' : 'alert'}>
          {result.ok ? result.message : result.error}
        </p>
      ) : null}
    </div>
  )
}
