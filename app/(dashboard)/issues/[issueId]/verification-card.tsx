import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import type { Verification } from '@/lib/releases/verification-view'
import styles from '../issues.module.css'
import reproductionStyles from './reproduction.module.css'
import { ScrollingText } from './scrolling-text'

const RUNNERS: Record<Verification['runner'], string> = {
  playwright: 'Playwright (CI)',
  agent: 'Agent',
}

function seconds(durationMs: number | null): string | null {
  return durationMs === null ? null : `${(durationMs / 1000).toFixed(1)} s`
}

/**
 * The issue's reproduction runs (docs/releases.md#verification): the latest result first and
 * large, then the earlier ones. The base URL, release and summary are the runner's words, so
 * they are shown as text only: never a link, never HTML (React escapes them).
 */
export function VerificationCard({
  verifications,
  apiBaseUrl,
  now,
}: {
  /** Newest first, at most 10 (IssueDetail.verifications). */
  verifications: Verification[]
  apiBaseUrl: string
  now: number
}) {
  const [latest, ...earlier] = verifications
  return (
    <section
      className={`card ${reproductionStyles.card}`}
      aria-labelledby="verification-heading"
      data-testid="verification"
    >
      <h2 id="verification-heading">Verification</h2>
      {latest ? (
        <>
          <p
            className={`alert ${latest.status === 'passed' ? 'alert-ok' : 'alert-error'} ${styles.wrap}`}
            data-testid="verification-latest"
            data-status={latest.status}
          >
            {latest.status === 'passed' ? (
              <>
                <strong>
                  Fix verified
                  {latest.release ? (
                    <>
                      {' '}
                      in <code>{latest.release}</code>
                    </>
                  ) : null}
                </strong>{' '}
                (reproduction passed against <code>{latest.baseUrl}</code>)
              </>
            ) : (
              <>
                <strong>Reproduction still fails</strong> against <code>{latest.baseUrl}</code>
                {latest.release ? (
                  <>
                    {' '}
                    (release <code>{latest.release}</code>)
                  </>
                ) : null}
              </>
            )}
          </p>
          <p className="muted">
            {RUNNERS[latest.runner]}, <RelativeTime date={latest.createdAt} now={now} />
            {latest.durationMs !== null ? `, took ${seconds(latest.durationMs)}` : ''}.
          </p>
          {latest.summary ? (
            <>
              <h3>What the runner reported</h3>
              <ScrollingText className={styles.pre} testId="verification-summary">
                {latest.summary}
              </ScrollingText>
            </>
          ) : null}
          {earlier.length > 0 ? (
            <>
              <h3>Earlier runs</h3>
              <div className="table-wrap">
                <table className="table" data-testid="verification-runs">
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Result</th>
                      <th scope="col" className="optional">
                        Runner
                      </th>
                      <th scope="col">Release</th>
                      <th scope="col">Against</th>
                    </tr>
                  </thead>
                  <tbody>
                    {earlier.map((run) => (
                      <tr key={run.id} data-testid="verification-run" data-status={run.status}>
                        <td>
                          <RelativeTime date={run.createdAt} now={now} />
                        </td>
                        <td>
                          <span className={run.status === 'passed' ? 'badge badge-ok' : 'badge badge-high'}>
                            {run.status === 'passed' ? 'Passed' : 'Failed'}
                          </span>
                        </td>
                        <td className="optional">{RUNNERS[run.runner]}</td>
                        <td className={styles.wrap}>
                          {run.release ? <code>{run.release}</code> : <span className="muted">none</span>}
                        </td>
                        <td className={styles.wrap}>
                          <code>{run.baseUrl}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ) : null}
        </>
      ) : (
        <div data-testid="verification-none">
          <p className="muted">
            No reproduction run has been reported yet. A fix counts when its reproduction passes against a
            deployment: run the suite of resolved issues in CI before each deploy (the release guard in{' '}
            <code>docs/releases.md</code>), with a read key to download it and a key that can report
            reproduction results (Settings → API keys):
          </p>
          <ScrollingText className={reproductionStyles.pre}>
            {`curl -fsS -H "Authorization: Bearer $REPRO_READ_KEY" \\
  "${apiBaseUrl}/api/v1/reproductions?format=tgz" | tar -xz
cd reproductions && npm install --no-save @playwright/test
REPRO_BASE_URL=https://preview.example.com REPRO_VERIFY_KEY=… npx playwright test`}
          </ScrollingText>
          <p className="muted">
            An agent reports its run with the MCP tool <code>report_reproduction_result</code>.
          </p>
        </div>
      )}
    </section>
  )
}
