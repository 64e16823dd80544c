/**
 * The test file's text: steps and checks as @playwright/test code. Page text only ever enters
 * it through lit() (a JSON string literal) or commentText() (one sanitised, quoted line).
 */
import { TRAIL_LIMITS, type TrailTarget } from '@/lib/analysis/trail'
import type { Check } from './assertions'
import { comment, commentText, lit, wasCut } from './code'
import { describeTarget, type Locator, locatorFor } from './locators'
import type { Placeholders } from './placeholders'
import type { Step } from './steps'

const INDENT = '  '

export interface TestPlan {
  issueId: string
  title: string
  sessionId: string | null
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

/** The origin of an http(s) URL; null for any other scheme or a URL that does not parse. */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null
  } catch {
    return null
  }
}

/** Where a URL leads, for a limitation: its origin, else its scheme. */
function placeOf(url: string): string {
  try {
    const parsed = new URL(url)
    return originOf(url) ?? parsed.protocol
  } catch {
    return 'an address that does not parse'
  }
}

/**
 * Run before a masked value is typed or chosen: a click of the replay may have led to another
 * site, and a test account's password must only ever be typed into the site under test.
 */
const SAME_SITE_GUARD =
  "expect(new URL(page.url()).origin, 'still on the site under test').toBe(new URL(BASE_URL).origin)"

class TestWriter {
  readonly lines: string[] = []
  readonly limitations: string[] = []
  actions = 0
  private partial = false
  private cutValue = false
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
   * A page of the site under test, always through BASE_URL; null for any other origin or
   * scheme. Page text decides every URL of a trail, so a recorded load of another site (or of
   * a javascript:, data: or file: address) never becomes a page.goto: the test could otherwise
   * be steered to a page that receives what it types.
   */
  private onSite(url: string): string | null {
    if (this.origin === null || originOf(url) !== this.origin) return null
    const parsed = new URL(url)
    return `new URL(${lit(`${parsed.pathname}${parsed.search}${parsed.hash}`, TRAIL_LIMITS.url)}, BASE_URL).href`
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

  /** A masked value is typed only while the page is still on the site under test. */
  private fillMasked(line: string) {
    this.code(SAME_SITE_GUARD, line)
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
        const name = this.placeholders.nameFor(step.target)
        this.note(`The recorder masked what was typed here: set ${name}.`)
        this.fillMasked(`await ${locator.code}.fill(process.env.${name} ?? '')`)
        this.limitations.push(
          name === 'REPRO_PASSWORD'
            ? `Fill REPRO_PASSWORD: the password typed in step ${number} was masked by the recorder.`
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
        const name = this.placeholders.nameFor(step.target)
        this.note(`Which option was chosen is not recorded: set ${name} to choose it.`)
        this.fillMasked(`if (process.env.${name}) await ${locator.code}.selectOption(process.env.${name})`)
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
  writer.code(...check.setup)
  if (plan.steps.length === 0) writer.code(...check.before)
  const opened = writer.goto(
    plan.entryUrl,
    `Open the page the user was on${plan.steps.length === 0 ? ' (the failure follows while it loads)' : ''}.`,
  )
  if (!opened)
    writer.note(
      `The page the user was on, ${commentText(plan.entryUrl, 120)}, is not an http(s) address: it is not opened.`,
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
    "import { expect, test } from '@playwright/test'",
    '',
    `// Reproduces issue ${plan.issueId}: ${commentText(plan.title)}`,
    plan.sessionId
      ? `// Built from the recorded session ${plan.sessionId}, up to the moment the issue happened.`
      : '// Built from the issue alone: no recorded session of it could be used.',
    '// It fails while the bug is there and passes once it is fixed.',
    '// Run it against another copy of the site with REPRO_BASE_URL (for example http://localhost:3000).',
    origin
      ? `// Without REPRO_BASE_URL it runs against the recorded site itself: ${commentText(origin, 120)}.`
      : '// The recorded page is not an http(s) address: set REPRO_BASE_URL to the site to test.',
    '// It only opens pages of that one site, and types masked values only while on it.',
  ]
  const names = placeholders.names
  if (names.length > 0) header.push(`// Values the recorder masked come from: ${names.join(', ')}.`)
  const code = [
    ...header,
    '',
    `const BASE_URL = process.env.REPRO_BASE_URL ?? ${lit(origin ?? 'http://localhost:3000', TRAIL_LIMITS.url)}`,
    '',
    `test(${lit(plan.title, 200)}, async ({ page }) => {`,
    ...writer.lines,
    '})',
    '',
  ].join('\n')
  if (origin === null)
    writer.limitations.push(
      'The page the user was on is not an http(s) address, so the test does not open it: set REPRO_BASE_URL and add the first page.goto by hand.',
    )
  return { code, actions: writer.actions, limitations: writer.limitations }
}
