import Link from 'next/link'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { isUuid } from '@/lib/errors'
import type { IssueHistoryEntry, TicketSnapshot } from '@/lib/issues/issue-history'
import { ISSUE_STATUS_LABELS } from '@/lib/issues/labels'
import { offset, webHref } from '../format'
import styles from '../issues.module.css'

function TicketLink({ ticket }: { ticket: TicketSnapshot }) {
  return (
    <>
      {ticket.provider}{' '}
      {webHref(ticket.url) ? (
        <a href={webHref(ticket.url)} target="_blank" rel="noopener noreferrer">
          {ticket.identifier || ticket.url}
        </a>
      ) : (
        ticket.identifier || ticket.url
      )}
    </>
  )
}

/** The release choice of a move to resolved. */
function FixRelease({ entry }: { entry: IssueHistoryEntry }) {
  if (entry.toStatus !== 'resolved') return null
  if (entry.nextRelease) return <> in the next release</>
  if (!entry.fixRelease) return null
  return (
    <>
      {' '}
      in <code>{entry.fixRelease}</code>
    </>
  )
}

function What({ entry }: { entry: IssueHistoryEntry }) {
  const to = entry.toStatus ? ISSUE_STATUS_LABELS[entry.toStatus] : null
  const from = entry.fromStatus ? ISSUE_STATUS_LABELS[entry.fromStatus] : null
  switch (entry.kind) {
    case 'created':
      return <>Issue created</>
    case 'status_changed':
      return (
        <>
          Status changed{from ? ` from ${from}` : ''} to <strong>{to}</strong>
          <FixRelease entry={entry} />
        </>
      )
    case 'fix_release':
      return entry.nextRelease ? (
        <>Fix release: the next release</>
      ) : (
        <>
          Fix release: <code>{entry.fixRelease}</code>
        </>
      )
    case 'verification':
      return entry.verification ? (
        <>
          Reproduction {entry.verification.status === 'passed' ? 'passed' : 'failed'}
          {entry.verification.baseUrl ? (
            <>
              {' '}
              against <code>{entry.verification.baseUrl}</code>
            </>
          ) : null}
          {entry.verification.release ? (
            <>
              {' '}
              (release <code>{entry.verification.release}</code>)
            </>
          ) : null}
        </>
      ) : (
        <>Reproduction run</>
      )
    case 'regressed':
      return (
        <>
          Seen again after it was resolved: back to <strong>{to ?? ISSUE_STATUS_LABELS.unresolved}</strong>
          {entry.release ? (
            <>
              {' '}
              in <code>{entry.release}</code>
            </>
          ) : null}
          {entry.fixRelease ? (
            <>
              {' '}
              (fixed in <code>{entry.fixRelease}</code>)
            </>
          ) : null}
          {entry.sessionId && isUuid(entry.sessionId) ? (
            <>
              {' '}
              (
              <Link
                href={`/sessions/${entry.sessionId}${entry.offsetMs !== null ? `?t=${entry.offsetMs}` : ''}`}
                data-testid="regression-replay"
              >
                replay where it came back
                {entry.offsetMs !== null ? `, at ${offset(entry.offsetMs)}` : ''}
              </Link>
              )
            </>
          ) : null}
        </>
      )
    case 'ticket_linked': {
      const linked = entry.ticket?.linked
      const previous = entry.ticket?.previous
      if (linked)
        return (
          <>
            Ticket {previous ? 'replaced by' : 'linked:'} <TicketLink ticket={linked} />
          </>
        )
      return previous ? (
        <>
          Ticket removed: <TicketLink ticket={previous} />
        </>
      ) : (
        <>Ticket removed</>
      )
    }
    case 'note':
      return <>Note</>
  }
}

export function IssueHistoryList({ history, now }: { history: IssueHistoryEntry[]; now: number }) {
  if (history.length === 0) return <p className="muted">No changes recorded yet.</p>
  return (
    <ol className={styles.history} data-testid="issue-history">
      {history.map((entry) => (
        <li key={entry.id}>
          <span>
            <What entry={entry} />
          </span>
          <span className="muted">
            {' '}
            by {entry.actor.via ? `${entry.actor.via} ` : ''}
            {entry.actor.name} · <RelativeTime date={entry.at} now={now} />
          </span>
          {entry.note !== null ? (
            // Text, never markup: React escapes it; the CSS keeps its line breaks.
            <span className={styles.note} data-testid="issue-note">
              {entry.note}
            </span>
          ) : null}
        </li>
      ))}
    </ol>
  )
}
