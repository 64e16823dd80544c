import Link from 'next/link'
import { isUuid } from '@/lib/errors'
import type { detailFields } from '@/lib/issues/issue-detail'

type Detail = Awaited<ReturnType<typeof detailFields>>

const day = (date: Date) => date.toISOString().slice(0, 10)

/**
 * What the issue's releases say (docs/releases.md#resolve-in-a-release): the release of the fix,
 * the sessions of older releases seen since, which did not reopen it, and why it last came back.
 * Entries of a description list, inside the page's facts.
 */
export function ReleaseFacts({
  issue,
  detail,
}: {
  issue: {
    status: string
    resolvedInRelease: string | null
    resolvedInNextRelease: boolean
    resolvedAt: Date | null
  }
  detail: Detail
}) {
  const fix = issue.resolvedInRelease
  const regression = detail.regression
  return (
    <>
      {issue.status === 'resolved' && (fix || issue.resolvedInNextRelease) ? (
        <>
          <dt>Resolution</dt>
          <dd data-testid="issue-resolution">
            {fix ? (
              <>
                Resolved in <code>{fix}</code>
              </>
            ) : (
              <>
                Resolved in the next release (waiting for a release after{' '}
                {issue.resolvedAt ? day(issue.resolvedAt) : 'the resolution'})
              </>
            )}
          </dd>
        </>
      ) : null}
      {detail.oldReleaseOccurrences.length > 0 ? (
        <>
          <dt>Older releases</dt>
          <dd data-testid="old-release-occurrences">
            {detail.oldReleaseOccurrences.map((group) => (
              <div key={group.release ?? ''}>
                Seen in {group.release ? <code>{group.release}</code> : 'sessions of no release'} after the
                fix
                {fix ? (
                  <>
                    {' '}
                    in <code>{fix}</code>
                  </>
                ) : null}
                : {group.sessions} {group.sessions === 1 ? 'session' : 'sessions'}, not a regression
              </div>
            ))}
          </dd>
        </>
      ) : null}
      {regression ? (
        <>
          <dt>Last regression</dt>
          <dd data-testid="issue-regression">
            {regression.release ? (
              <>
                Regressed in <code>{regression.release}</code>
              </>
            ) : (
              'Regressed'
            )}
            {regression.resolvedInRelease ? (
              <>
                {' '}
                (fixed in <code>{regression.resolvedInRelease}</code>)
              </>
            ) : null}{' '}
            on {regression.at.slice(0, 10)}
            {isUuid(regression.sessionId) ? (
              <>
                {' '}
                (<Link href={`/sessions/${regression.sessionId}`}>the session</Link>)
              </>
            ) : null}
          </dd>
        </>
      ) : null}
    </>
  )
}
