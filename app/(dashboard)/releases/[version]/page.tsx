import type { Metadata } from 'next'
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { cache } from 'react'
import { RelativeTime } from '@/app/(dashboard)/_components/relative-time'
import { getDb } from '@/lib/db'
import { InvalidInputError, NotFoundError } from '@/lib/errors'
import { getSignedInUser, requireMember } from '@/lib/http/session'
import { ISSUE_STATUS_LABELS } from '@/lib/issues/labels'
import { currentOrganization } from '@/lib/members/memberships'
import { getRelease } from '@/lib/releases/health'
import type { IssueRef } from '@/lib/releases/views'
import { PRIORITY_BADGE, STATUS_BADGE } from '../../issues/format'
import { count, crashFree, versionFromParam } from '../format'
import styles from '../releases.module.css'
import { AdoptionChart } from './adoption-chart'

type Params = Promise<{ version: string }>

/** The release of the member's organization, or the not-found page (another organization's too). */
const loadRelease = cache(async (organizationId: string, raw: string) => {
  const version = versionFromParam(raw)
  if (version === null) notFound()
  try {
    return await getRelease(await getDb(), organizationId, version)
  } catch (error) {
    // A name no release could have (too long, unstorable text) names no release either.
    if (error instanceof NotFoundError || error instanceof InvalidInputError) notFound()
    throw error
  }
})

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const user = await getSignedInUser()
  const organization = user && currentOrganization(user)
  if (!organization) return { title: 'Release' }
  const { version } = await params
  return { title: `Release ${(await loadRelease(organization.id, version)).version}` }
}

function Figure({
  value,
  name,
  meaning,
  testId,
}: {
  value: string
  name: string
  meaning: string
  testId: string
}) {
  return (
    <div className={styles.figure}>
      <dt>{name}</dt>
      <dd className={styles.figureValue} data-testid={testId}>
        {value}
      </dd>
      <dd className={styles.figureMeaning}>{meaning}</dd>
    </div>
  )
}

function IssueList({
  id,
  title,
  explanation,
  empty,
  issues,
}: {
  id: string
  title: string
  explanation: string
  empty: string
  issues: IssueRef[]
}) {
  return (
    <section className={`card ${styles.section}`} aria-labelledby={id} data-testid={id}>
      <h2 id={id}>
        {title} <span className="muted">({issues.length})</span>
      </h2>
      <p className="muted">{explanation}</p>
      {issues.length === 0 ? (
        <p>{empty}</p>
      ) : (
        <ul className={styles.issueList}>
          {issues.map((issue) => (
            <li key={issue.id} className={styles.issueItem} data-testid="release-issue">
              <span className={PRIORITY_BADGE[issue.priority]}>{issue.priority}</span>
              <Link className={styles.issueTitle} href={`/issues/${issue.id}`} title={issue.title}>
                {issue.title}
              </Link>
              <span className={STATUS_BADGE[issue.status]}>{ISSUE_STATUS_LABELS[issue.status]}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

export default async function ReleasePage({ params }: { params: Params }) {
  const { version: raw } = await params
  // Sign-in comes back to the address as requested (the version still encoded), not rebuilt from it.
  const { organization } = await requireMember()
  const now = Date.now()
  const release = await loadRelease(organization.id, raw)
  const withErrors = release.sessionsWithErrors
  return (
    <>
      <p>
        <Link href="/releases">← All releases</Link>
      </p>
      <section className={styles.section}>
        <h1 className={styles.title}>
          Release <code data-testid="release-version">{release.version}</code>
        </h1>
        <dl className="facts">
          <dt>First seen</dt>
          <dd>
            <RelativeTime date={release.firstSeenAt} now={now} />
          </dd>
          <dt>Deployed</dt>
          <dd>
            <RelativeTime date={release.deployedAt} now={now} empty="not stated by CI" />
          </dd>
          <dt>Last session</dt>
          <dd>
            <RelativeTime date={release.lastSessionAt} now={now} empty="none yet" />
          </dd>
          <dt>Name</dt>
          <dd>{release.semver ? 'a semantic version' : 'not a semantic version'}</dd>
        </dl>
      </section>
      <section className={`card ${styles.section}`} aria-labelledby="release-health">
        <h2 id="release-health">Health</h2>
        <dl className={styles.figures}>
          <Figure
            testId="figure-sessions"
            name="Sessions"
            value={String(release.sessions)}
            meaning="Visits recorded on this release. Automated visits (tests, crawlers, reproduction runs) are not counted."
          />
          <Figure
            testId="figure-crash-free"
            name="Crash-free sessions"
            value={crashFree(release.crashFreeSessions)}
            meaning={
              release.crashFreeSessions === null
                ? 'No session of this release has been analysed yet, so there is no figure.'
                : `The share of its analysed sessions without an error: ${count(withErrors, 'session')} had at least one.`
            }
          />
          <Figure
            testId="figure-sessions-with-errors"
            name="Sessions with errors"
            value={String(withErrors)}
            meaning="Analysed sessions in which at least one error was recorded."
          />
          <Figure
            testId="figure-users"
            name="Users"
            value={String(release.users)}
            meaning="Different people in those sessions: the identified user, else the recorder's anonymous id."
          />
          <Figure
            testId="figure-new-issues"
            name="New issues"
            value={String(release.newIssues)}
            meaning="Issues first seen in a session of this release."
          />
          <Figure
            testId="figure-regressions"
            name="Regressions"
            value={String(release.regressions)}
            meaning="Resolved issues that came back in a session of this release, which reopened them."
          />
        </dl>
      </section>
      <section className={`card ${styles.section}`} aria-labelledby="release-adoption">
        <h2 id="release-adoption">Adoption, last {release.adoption.length} days</h2>
        <p className="muted">
          Sessions of this release per UTC day, and their share of all the sessions recorded that day.
        </p>
        <AdoptionChart days={release.adoption} />
      </section>
      <IssueList
        id="issues-new"
        title="New in this release"
        explanation="Issues whose first occurrence was in a session of this release."
        empty="No issue started in this release."
        issues={release.issues.new}
      />
      <IssueList
        id="issues-regressed"
        title="Regressed in this release"
        explanation="Issues that were resolved and came back in a session of this release."
        empty="No resolved issue came back in this release."
        issues={release.issues.regressed}
      />
      <IssueList
        id="issues-seen"
        title="Seen in this release"
        explanation="Every issue that occurred in at least one session of this release, new or not."
        empty="No issue occurred in a session of this release."
        issues={release.issues.seen}
      />
    </>
  )
}
