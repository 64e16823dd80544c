import { AttemptLines, DeliveryStatusBadge } from '@/app/(dashboard)/_components/delivery-cells'
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
              <DeliveryStatusBadge status={d.status} />
              {d.status === 'pending' && d.nextAttemptAt ? (
                <span className="muted">
                  {' '}
                  next <When date={d.nextAttemptAt} />
                </span>
              ) : null}
            </td>
            <td>
              <AttemptLines attempts={d.log} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
