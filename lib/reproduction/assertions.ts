/**
 * The check of correct behaviour at the failing moment, so the test fails while the bug is
 * there and passes once it is fixed: no uncaught error (or console.error) with the recorded
 * message; the recorded request answers below 400 (or at least does not fail); the click gets
 * a response (a DOM change, a same-origin request or a navigation). Each check is split in
 * what must run before the first page opens, right before the triggering step, and after it.
 */
import { commentText, lit } from './code'
import type { Failure } from './failure'

export interface Check {
  /** Before the first page opens. */
  setup: string[]
  /** Right before the step that triggers the failure. */
  before: string[]
  /** After that step. */
  after: string[]
  /** What the check cannot see, for the answer's limitations. */
  limitations: string[]
}

const FLAG = '(window as unknown as { __reproChanged?: boolean })'

function errorCheck(failure: Extract<Failure, { kind: 'error' }>): Check {
  const what = failure.console ? `console.error ${failure.label}` : `Uncaught ${failure.label}`
  return {
    setup: [
      '// Uncaught errors and console.error messages of the page, to check that none is the recorded one.',
      'const errors: string[] = []',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: generated code, a template literal of its own
      "page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`))",
      "page.on('console', (message) => {",
      "  if (message.type() === 'error') errors.push(message.text())",
      '})',
    ],
    before: [],
    after: [
      '// The recording saw the error right after this step: give the page a moment to throw it.',
      'await page.waitForTimeout(1_000)',
      `expect(errors.filter((text) => text.includes(${lit(failure.message)})), ${lit(`${what} (recorded)`)}).toEqual([])`,
    ],
    limitations: [],
  }
}

function requestCheck(failure: Extract<Failure, { kind: 'request' }>): Check {
  const matcher = (request: string, url: string) =>
    `${request}.method() === ${lit(failure.method)} && new URL(${url}).pathname === ${lit(failure.path)}`
  if (failure.status === 0) {
    return {
      setup: [],
      before: [
        '// The recorded request got no answer: collect failures of that request.',
        'const failedRequests: string[] = []',
        "page.on('requestfailed', (request) => {",
        `  if (${matcher('request', 'request.url()')}) failedRequests.push(request.failure()?.errorText ?? 'failed')`,
        '})',
      ],
      after: [
        'await page.waitForTimeout(2_000)',
        `expect(failedRequests, ${lit(`${failure.method} ${failure.path} failed without an answer (recorded)`)}).toEqual([])`,
      ],
      limitations: [
        'The request got no answer in the recording; the test checks that it does not fail. A request the browser never sends (an invalid URL, blocked by CORS) cannot be seen this way.',
      ],
    }
  }
  return {
    setup: [],
    before: [
      `// The recording saw ${commentText(`${failure.method} ${failure.path}`)} answer ${failure.status}: wait for that request.`,
      'const response = page.waitForResponse(',
      `  (answer) => ${matcher('answer.request()', 'answer.url()')},`,
      ')',
    ],
    after: [
      `expect((await response).status(), ${lit(`${failure.method} ${failure.path} answered ${failure.status} (recorded)`)}).toBeLessThan(400)`,
    ],
    limitations: [],
  }
}

function clickCheck(failure: Extract<Failure, { kind: 'click' }>, element: string): Check {
  const what = failure.rage ? 'The repeated clicks on' : 'The click on'
  return {
    setup: [],
    before: [
      // An earlier step's late answer (a fetch that updates the page) would count as a response.
      "// Let the earlier steps' effects settle, then watch for any response to the click:",
      '// a DOM change, a same-origin request or a navigation.',
      'await page.waitForTimeout(1_000)',
      'await page.evaluate(() => {',
      `  const flags = ${FLAG}`,
      '  flags.__reproChanged = false',
      '  new MutationObserver(() => {',
      '    flags.__reproChanged = true',
      '  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true })',
      '})',
      'const urlBefore = page.url()',
      'let requested = false',
      "page.on('request', (request) => {",
      '  if (new URL(request.url()).origin === new URL(urlBefore).origin) requested = true',
      '})',
    ],
    after: [
      'await expect',
      '  .poll(',
      '    async () =>',
      '      requested ||',
      '      page.url() !== urlBefore ||',
      `      (await page.evaluate(() => ${FLAG}.__reproChanged === true).catch(() => true)),`,
      `    { message: ${lit(`${what} ${element} produced no response (no DOM change, request or navigation)`)}, timeout: 3_000 },`,
      '  )',
      '  .toBe(true)',
    ],
    limitations: [
      'Any DOM change, same-origin request or navigation after the click counts as a response; a page that changes by itself (timers, animations) can hide the dead click.',
    ],
  }
}

export function checkFor(failure: Failure, element: string): Check {
  switch (failure.kind) {
    case 'error':
      return errorCheck(failure)
    case 'request':
      return requestCheck(failure)
    case 'click':
      return clickCheck(failure, element)
  }
}
