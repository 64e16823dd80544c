import type { InputHTMLAttributes, ReactNode } from 'react'
import type { ActionResult } from '@/lib/http/actions'

/** A labelled input of the design system; `name` doubles as the id the label points at. */
export function Field({
  label,
  hint,
  name,
  ...input
}: { label: string; hint?: ReactNode; name: string } & InputHTMLAttributes<HTMLInputElement>) {
  const hintId = hint ? `${name}-hint` : undefined
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input className="input" id={name} name={name} aria-describedby={hintId} {...input} />
      {hint ? (
        <span className="muted" id={hintId}>
          {hint}
        </span>
      ) : null}
    </div>
  )
}

export function FormError({ message }: { message: string | null }) {
  if (!message) return null
  return (
    <p className="alert alert-error" role="alert">
      {message}
    </p>
  )
}

/** What a server action answered: its message as a status, or its error as an alert. */
export function ActionOutcome({ state }: { state: ActionResult | null }) {
  if (!state) return null
  return (
    <p className={`alert ${state.ok ? 'alert-ok' : 'alert-error'}`} role={state.ok ? 'status' : 'alert'}>
      {state.ok ? state.message : state.error}
    </p>
  )
}
