import { When } from './when'

/** A delivery's state as a badge: green once delivered, grey while pending or after failing. */
export function DeliveryStatusBadge({ status }: { status: string }) {
  return <span className={status === 'succeeded' ? 'badge badge-ok' : 'badge badge-off'}>{status}</span>
}

interface Attempt {
  id: string
  attempt: number
  startedAt: Date | string
  durationMs: number
  httpStatus: number | null
  errorLabel: string | null
}

/** Attempts of one delivery: when, how long, what status or error label. Never a receiver's body. */
export function AttemptLines({ attempts }: { attempts: readonly Attempt[] }) {
  return attempts.map((a) => (
    <div key={a.id}>
      #{a.attempt} <When date={a.startedAt} /> · {a.durationMs} ms · {a.errorLabel ?? `HTTP ${a.httpStatus}`}
    </div>
  ))
}
