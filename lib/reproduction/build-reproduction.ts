/**
 * A runnable Playwright test for an issue, built from one session's trail (docs/reproduction.md):
 * open the page the user was on, repeat their last actions up to the failing moment, then check
 * the correct behaviour there. Pure: the caller reads the issue, the session and its trail.
 */
import type { TrailEntry, TrailTarget } from '@/lib/analysis/trail'
import { checkFor } from './assertions'
import { commentText } from './code'
import { failureOf, type ReproductionIssue } from './failure'
import { locateMoment } from './moment'
import { Placeholders } from './placeholders'
import { originOf } from './site-path'
import { MAX_STEPS, planSteps, type Step } from './steps'
import { writeTest } from './write-test'

export type { ReproductionIssue } from './failure'

export interface ReproductionSession {
  sessionId: string
  /** The session's first page. */
  entryUrl: string
  /** The issue's first occurrence in the session (epoch ms). */
  failingAt: number
  /** The stored trail up to a little after `failingAt`; null when the session has none. */
  trail: readonly TrailEntry[] | null
  /** The stored trail stopped at its entry limit. */
  trailTruncated: boolean
  /** The trail given starts after the session's first entries (a bounded read). */
  earlierEntries: boolean
  /** The recorder identified the user (they were probably signed in). */
  identifiedUser: boolean
  /** The element the finding was triggered by, as analysis resolved it (issue_sessions.evidence). */
  trigger: { selector: string; text: string } | null
  /** The recorder's user agent, named in the file's header. */
  userAgent?: string | null
}

export interface ReproductionDraft {
  test: string
  sessionId: string | null
  entryUrl: string
  /** Replayed actions, the first page load included. */
  steps: number
  limitations: string[]
}

const MAX_LIMITATIONS = 12
/**
 * The test's own size ceiling, so that it fits an agent's tool answer (lib/mcp/answer-budget.ts)
 * with its limitations: long URLs and names make fewer steps fit.
 */
export const MAX_TEST_CHARS = 16_000
const MAX_NOTES = 30
const LOGIN_PATH = /(?:log-?in|sign-?in|auth|sso)/i

function pathOfUrl(url: string): string {
  try {
    return new URL(url).pathname
  } catch {
    return ''
  }
}

const isLoginPage = (url: string) => LOGIN_PATH.test(pathOfUrl(url).slice(0, 300))
const isPassword = (step: Step) => step.kind === 'input' && step.target.type?.toLowerCase() === 'password'
const stepUrl = (step: Step) => (step.kind === 'goto' ? step.url : step.pageUrl)

function targetOf(trigger: { selector: string; text: string }): TrailTarget {
  return {
    tag: '',
    selector: trigger.selector,
    role: null,
    name: null,
    text: trigger.text,
    testId: null,
    id: null,
    type: null,
    href: null,
  }
}

/** What the kept steps cannot do by themselves: being signed in, other origins, dropped steps. */
function sessionLimitations(
  session: ReproductionSession,
  entryUrl: string,
  steps: Step[],
  dropped: Step[],
): string[] {
  const out: string[] = []
  if (dropped.length > 0 || session.earlierEntries)
    out.push(
      `Only the last ${steps.length} steps before the failure are replayed; earlier ones were left out, so the test starts on ${commentText(entryUrl, 120)}.`,
    )
  const loginUrls = [entryUrl, ...steps.map(stepUrl)].filter(isLoginPage)
  if (loginUrls.length > 0 || steps.some(isPassword))
    out.push(
      `The steps go through a sign-in (${commentText(loginUrls[0] ?? 'a password field', 120)}): the test needs a test account, typed through the placeholders.`,
    )
  else if (dropped.some((step) => isLoginPage(stepUrl(step)) || isPassword(step)) || session.identifiedUser)
    out.push(
      'The user was probably signed in before the first replayed step: sign in first (for example with a storageState) or the page may differ.',
    )
  // displayUrl() (lib/analysis/url.ts) hides query values that look like tokens or ids.
  if (
    [entryUrl, ...steps.filter((step) => step.kind === 'goto').map(stepUrl)].some((url) => url.includes('=…'))
  )
    out.push(
      'Some query values of the pages opened were hidden when recorded (shown as …): fill them in by hand.',
    )
  // Loads of another origin or scheme are not replayed (write-test.ts says so); a click or an
  // input recorded there is, on whatever page the replay is on by then.
  const home = originOf(entryUrl)
  const others = [
    ...new Set(
      steps
        .filter((step) => step.kind !== 'goto')
        .map((step) => originOf(step.pageUrl) ?? 'another scheme')
        .filter((origin) => origin !== home),
    ),
  ]
  if (others.length > 0)
    out.push(
      `Some steps were recorded on another origin (${others
        .slice(0, 3)
        .map((origin) => commentText(origin, 80))
        .join(', ')}): the test replays them on whatever page it is on then.`,
    )
  return out
}

function fromTrail(
  issue: ReproductionIssue,
  session: ReproductionSession,
  trail: readonly TrailEntry[],
): ReproductionDraft {
  const failure = failureOf(issue)
  const moment = locateMoment(trail, failure, session.failingAt)
  const failurePage = moment.actions.at(-1)?.pageUrl ?? trail.at(-1)?.pageUrl ?? session.entryUrl
  const write = (maxSteps: number) => {
    const plan = planSteps(moment.actions, failurePage, maxSteps)
    const check = checkFor(failure)
    const test = {
      issueId: issue.id,
      title: issue.title,
      sessionId: session.sessionId,
      userAgent: session.userAgent ?? null,
      notes: [],
      check,
    }
    return { plan, check, written: writeTest({ ...test, ...plan }, new Placeholders()) }
  }
  let maxSteps = MAX_STEPS
  let { plan, check, written } = write(maxSteps)
  while (written.code.length > MAX_TEST_CHARS && maxSteps > 1) {
    maxSteps = Math.floor((maxSteps * 3) / 4)
    ;({ plan, check, written } = write(maxSteps))
  }
  const limitations = [
    ...sessionLimitations(session, plan.entryUrl, plan.steps, plan.dropped),
    ...written.limitations,
  ]
  if (!moment.found)
    limitations.unshift(
      session.trailTruncated
        ? "The session's trail stopped at its entry limit before the failing moment: the test replays what was recorded up to then."
        : "The failing moment was not found in the session's trail: the test replays the user's actions up to the time the issue was first seen.",
    )
  limitations.push(...check.limitations)
  return {
    test: written.code,
    sessionId: session.sessionId,
    entryUrl: plan.entryUrl,
    steps: written.actions,
    limitations: limitations.slice(0, MAX_LIMITATIONS),
  }
}

/** Without a trail: the issue's written steps as comments, the trigger click if known, and the check. */
function fromIssue(issue: ReproductionIssue, session: ReproductionSession | null): ReproductionDraft {
  const failure = failureOf(issue)
  const evidence = issue.evidence ?? {}
  const pageUrl = typeof evidence.pageUrl === 'string' ? evidence.pageUrl : null
  const entryUrl = pageUrl ?? session?.entryUrl ?? ''
  const trigger =
    session?.trigger ??
    (failure.kind === 'click' && failure.selector ? { selector: failure.selector, text: '' } : null)
  const target = trigger ? targetOf(trigger) : null
  const steps: Step[] = target ? [{ kind: 'click', target, pageUrl: entryUrl }] : []
  const notes = (issue.stepsToReplicate ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, MAX_NOTES)
    .map((line) => `Recorded step: ${commentText(line)}`)
  if (notes.length > 0)
    notes.unshift('Do what the recorded steps below say; only the last click is replayed.')
  const check = checkFor(failure)
  const written = writeTest(
    {
      issueId: issue.id,
      title: issue.title,
      sessionId: session?.sessionId ?? null,
      userAgent: session?.userAgent ?? null,
      entryUrl,
      steps,
      notes,
      check,
    },
    new Placeholders(),
  )
  const limitations = [
    session
      ? 'The session was processed before trails were recorded: the steps to replicate are comments, and only the page and the triggering click are replayed.'
      : 'No recorded session of this issue could be used: the test is built from the issue alone (its page, steps to replicate as comments and the check).',
    ...written.limitations,
    ...check.limitations,
  ]
  return {
    test: written.code,
    sessionId: session?.sessionId ?? null,
    entryUrl,
    steps: written.actions,
    limitations: limitations.slice(0, MAX_LIMITATIONS),
  }
}

export function buildReproduction(
  issue: ReproductionIssue,
  session: ReproductionSession | null,
): ReproductionDraft {
  if (session?.trail && session.trail.length > 0) return fromTrail(issue, session, session.trail)
  return fromIssue(issue, session)
}
