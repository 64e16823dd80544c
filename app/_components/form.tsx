import type { InputHTMLAttributes, ReactNode } from 'react'

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
