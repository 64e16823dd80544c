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

/** The origin the test opens, overridable with REPRO_BASE_URL; null when the URL is not http(s). */
function originOf(url: string): string | null {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null
  } catch {
    return null
  }
}

class TestWriter {
  readonly lines: string[] = []
  readonly limitations: string[] = []
  actions = 0
  private partial = false
  private cutValue = false

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

  /** A same-origin URL goes through BASE_URL, so the test can run against another copy of the site. */
  url(url: string): string {
    const origin = originOf(url)
    if (origin !== null && origin === this.origin) {
      const parsed = new URL(url)
      return `new URL(${lit(`${parsed.pathname}${parsed.search}${parsed.hash}`, TRAIL_LIMITS.url)}, BASE_URL).href`
    }
    return lit(url, TRAIL_LIMITS.url)
  }

  goto(url: string) {
    this.actions++
    this.code(`await page.goto(${this.url(url)})`)
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
      this.note(`Step ${number}: open ${commentText(step.url)}${suffix}`)
      this.goto(step.url)
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
        this.code(`await ${locator.code}.fill(process.env.${name} ?? '')`)
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
        this.code(`if (process.env.${name}) await ${locator.code}.selectOption(process.env.${name})`)
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
  writer.note(
    `Open the page the user was on${plan.steps.length === 0 ? ' (the failure follows while it loads)' : ''}.`,
  )
  writer.goto(plan.entryUrl)
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
    writer.limitations.push('The page the test opens is not an http(s) address: set REPRO_BASE_URL.')
  return { code, actions: writer.actions, limitations: writer.limitations }
}
