import { When } from '@/app/(dashboard)/_components/when'
import type { deliveryLog } from '@/lib/webhooks/log'

type Log = Awaited<ReturnType<typeof deliveryLog>>

/** Attempts per delivery: when, how long, what status or error label. Never a receiver's body. */
export function DeliveryLog({ log }: { log: Log }) {
  if (log.length === 0) return <p className="muted">No deliveries yet.</p>
  return (
    <table className="table">
      <thead>
        <tr>
          <th>Event</th>
          <th>Id</th>
          <th>Status</th>
          <th>Attempts</th>
        </tr>
      </thead>
      <tbody>
        {log.map((d) => (
          <tr key={d.id}>
            <td>
              <code>{d.eventType}</code> {d.isTest ? <span className="badge">test</span> : null}
            </td>
            <td>
              <code>{d.eventId}</code>
            </td>
            <td>
              <span className={d.status === 'succeeded' ? 'badge badge-ok' : 'badge badge-off'}>
                {d.status}
              </span>
              {d.status === 'pending' && d.nextAttemptAt ? (
                <span className="muted">
                  {' '}
                  next <When date={d.nextAttemptAt} />
                </span>
              ) : null}
            </td>
            <td>
              {d.log.map((a) => (
                <div key={a.id}>
                  #{a.attempt} <When date={a.startedAt} /> · {a.durationMs} ms ·{' '}
                  {a.errorLabel ?? `HTTP ${a.httpStatus}`}
                </div>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
