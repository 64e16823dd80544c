/**
 * The test file's text: steps and checks as @playwright/test code. Page text only ever enters
 * it through lit() (a JSON string literal) or commentText() (one sanitised, quoted line).
 */
import { TRAIL_LIMITS, type TrailTarget } from '@/lib/analysis/trail'
import type { Check } from './assertions'
import { comment, commentText, lit, wasCut } from './code'
import { describeTarget, type Locator, locatorFor } from './locators'
import type { Placeholders } from './placeholders'
import { siteGuardCode, TEST_START } from './site-guard'
import { originOf, sitePath } from './site-path'
import type { Step } from './steps'

const INDENT = '  '

export interface TestPlan {
  issueId: string
  title: string
  sessionId: string | null
  /** The recorded session's user agent, named in the header (information only). */
  userAgent: string | null
  entryUrl: string
  steps: Step[]
  /** Lines shown as comments where the steps would be (a fallback without a trail). */
  notes: string[]
  check: Check
}

export interface WrittenTest {
  code: string
  /** Replayed actions, the first page load included. */
  actions: number
  limitations: string[]
}

/** Where a URL leads, for a limitation: its origin once its path is resolved, else its scheme. */
function placeOf(url: string): string {
  try {
    const parsed = new URL(url)
    const origin = originOf(url)
    if (origin === null) return parsed.protocol
    // "https://shop.example//evil.example/x" leads to evil.example, not to the shop.
    return originOf(new URL(`${parsed.pathname}${parsed.search}`, origin).href) ?? origin
  } catch {
    return 'an address that does not parse'
  }
}

class TestWriter {
  readonly lines: string[] = []
  readonly limitations: string[] = []
  actions = 0
  private partial = false
  private cutValue = false
  /** The step number of the first masked value typed or chosen, if any. */
  private firstMasked: number | null = null
  /** The number of the last step written. */
  private lastStep = 0
  masked = false
  /** Origins and schemes of the recorded page loads that are not replayed. */
  private readonly elsewhere = new Set<string>()

  constructor(
    private readonly origin: string | null,
    private readonly placeholders: Placeholders,
  ) {}

  code(...lines: string[]) {
    for (const line of lines) this.lines.push(`${INDENT}${line}`)
  }

  note(text: string) {
    this.lines.push(comment(INDENT, text))
  }

  /**
   * A page of the site under test, always through onSite() and BASE_URL; null for any other
   * origin or scheme, or a path that would leave the site once resolved ("//host", "/\\host").
   * Page text decides every URL of a trail, so a recorded load elsewhere never becomes a
   * page.goto: the test could otherwise be steered to a page that receives what it types.
   */
  private onSite(url: string): string | null {
    const path = sitePath(url, this.origin)
    return path === null ? null : `onSite(${lit(path, TRAIL_LIMITS.url)})`
  }

  /** Opens `url` when it is on the site under test; false when it is not replayed. */
  goto(url: string, note: string): boolean {
    const target = this.onSite(url)
    if (target === null) return false
    this.note(note)
    this.actions++
    this.code(`await page.goto(${target})`)
    return true
  }

  private maskedAt(number: number) {
    this.masked = true
    this.firstMasked ??= number
  }

  private locate(target: TrailTarget, number: number): Locator | null {
    const locator = locatorFor(target)
    if (!locator) {
      this.limitations.push(
        `Step ${number}: no test id, name, text or selector of the element was recorded, so the step is only a comment.`,
      )
      this.note('No way to find this element again was recorded: do this step by hand.')
    } else if (locator.partial) this.partial = true
    return locator
  }

  step(step: Step, number: number, triggers: boolean) {
    this.lastStep = number
    const suffix = triggers ? ' (the failure follows this step)' : ''
    if (step.kind === 'goto') {
      if (this.goto(step.url, `Step ${number}: open ${commentText(step.url)}${suffix}`)) return
      this.note(
        `Step ${number}: the user opened ${commentText(step.url)}, another origin or scheme: not replayed${suffix}.`,
      )
      this.elsewhere.add(placeOf(step.url))
      return
    }
    const element = commentText(describeTarget(step.target))
    if (step.kind === 'click') {
      this.note(`Step ${number}: click ${element}${suffix}`)
      const locator = this.locate(step.target, number)
      if (locator) {
        this.actions++
        this.code(`await ${locator.code}.click()`)
      }
      return
    }
    this.note(`Step ${number}: ${step.control === 'toggle' ? 'toggle' : 'fill in'} ${element}${suffix}`)
    const locator = this.locate(step.target, number)
    if (!locator) return
    this.actions++
    const field = commentText(step.target.name ?? step.target.selector, 60)
    switch (step.control) {
      case 'text': {
        if (step.value !== null && !step.masked) {
          if (wasCut(step.value)) this.cutValue = true
          this.code(`await ${locator.code}.fill(${lit(step.value, TRAIL_LIMITS.value)})`)
          return
        }
        const name = this.placeholders.nameFor(locator)
        // Checked at run time, whatever the recording says: a password goes only into a password input.
        const password = step.target.type?.toLowerCase() === 'password' || name.includes('PASSWORD')
        this.note(`The recorder masked what was typed here: set ${name}.`)
        this.maskedAt(number)
        this.code(`await fillMasked(page, ${locator.code}, process.env.${name}, ${password})`)
        this.limitations.push(
          password
            ? `Fill ${name}: the password typed in step ${number} was masked by the recorder.`
            : `Set ${name}: what was typed into ${field} in step ${number} was masked by the recorder.`,
        )
        return
      }
      case 'toggle':
        this.code(
          `await ${locator.code}.${step.checked === true ? 'check' : step.checked === false ? 'uncheck' : 'click'}()`,
        )
        return
      case 'select': {
        const name = this.placeholders.nameFor(locator)
        this.note(`Which option was chosen is not recorded: set ${name} to choose it.`)
        this.maskedAt(number)
        this.code(`if (process.env.${name}) {`, '  expectOnSite(page)')
        this.code(`  await ${locator.code}.selectOption(process.env.${name})`, '}')
        this.limitations.push(`Set ${name}: the option chosen in ${field} in step ${number} is not recorded.`)
        return
      }
      default:
        this.actions--
        this.note('This control cannot be filled from the recording: do this step by hand.')
        this.limitations.push(`Step ${number}: the value given to ${field} cannot be replayed.`)
    }
  }

  finish() {
    if (this.firstMasked !== null && this.firstMasked < this.lastStep)
      this.limitations.push(
        `The steps after step ${this.firstMasked} follow masked values: unless their variables are set to what the user typed (a test account), the page may answer differently from the recording.`,
      )
    if (this.elsewhere.size > 0)
      this.limitations.push(
        `A step opened another origin or scheme (${[...this.elsewhere]
          .slice(0, 3)
          .map((place) => commentText(place, 80))
          .join(', ')}): not replayed, so the test stays on the site under test.`,
      )
    if (this.partial)
      this.limitations.push(
        'Some element names or texts were cut when recorded; their locators match by prefix.',
      )
    if (this.cutValue)
      this.limitations.push('A typed value was cut when recorded; the test types its start only.')
  }
}

export function writeTest(plan: TestPlan, placeholders: Placeholders): WrittenTest {
  const origin = originOf(plan.entryUrl)
  const writer = new TestWriter(origin, placeholders)
  const { check } = plan
  writer.code(...TEST_START)
  writer.code(...check.setup)
  if (plan.steps.length === 0) writer.code(...check.before)
  const opened = writer.goto(
    plan.entryUrl,
    `Open the page the user was on${plan.steps.length === 0 ? ' (the failure follows while it loads)' : ''}.`,
  )
  if (!opened)
    writer.note(
      origin === null
        ? `The page the user was on, ${commentText(plan.entryUrl, 120)}, is not an http(s) address: it is not opened.`
        : `The page the user was on, ${commentText(plan.entryUrl, 120)}, leads to another origin (${commentText(placeOf(plan.entryUrl), 80)}): it is not opened.`,
    )
  for (const note of plan.notes) writer.note(note)
  plan.steps.forEach((step, index) => {
    const last = index === plan.steps.length - 1
    if (last) writer.code(...check.before)
    writer.step(step, index + 1, last)
  })
  writer.code(...check.after)
  writer.finish()

  const header = [
    "import { type BrowserContext, expect, type Locator, type Page, test } from '@playwright/test'",
    '',
    `// Reproduces issue ${plan.issueId}: ${commentText(plan.title)}`,
    plan.sessionId
      ? `// Built from the recorded session ${plan.sessionId}, up to the moment the issue happened.`
      : '// Built from the issue alone: no recorded session of it could be used.',
  ]
  if (origin)
    header.push(`// Recorded on ${commentText(origin, 120)} (for reference: the test never opens it).`)
  if (plan.userAgent) header.push(`// Recorded with the user agent ${commentText(plan.userAgent, 200)}.`)
  header.push(
    '// It fails while the bug is there and passes once it is fixed.',
    '// Run it only against a local or staging copy of the site, never production, for example:',
    '//   REPRO_BASE_URL=http://localhost:3000 npx playwright test',
    '// It opens pages of that site only: every navigation elsewhere (a link, a redirect, a popup)',
    '// is aborted, and masked values are typed only there (a password only into a password input).',
  )
  const names = placeholders.names
  if (names.length > 0) header.push(`// Values the recorder masked come from: ${names.join(', ')}.`)
  const code = [
    ...header,
    '',
    ...siteGuardCode({ masked: writer.masked }),
    ...(check.constants.length > 0 ? ['', ...check.constants] : []),
    '',
    `test(${lit(`issue ${plan.issueId}: the recorded failure does not happen`)}, async ({ page }) => {`,
    ...writer.lines,
    '})',
    '',
  ].join('\n')
  if (origin === null)
    writer.limitations.push(
      'The page the user was on is not an http(s) address, so the test does not open it: add the first page.goto(onSite(…)) by hand.',
    )
  else if (!opened)
    writer.limitations.push(
      `The page the user was on leads to another origin (${commentText(placeOf(plan.entryUrl), 80)}), so the test does not open it: add the first page.goto(onSite(…)) by hand.`,
    )
  return { code, actions: writer.actions, limitations: writer.limitations }
}
