/**
 * The check of correct behaviour at the failing moment, so the test fails while the bug is
 * there and passes once it is fixed: no uncaught error (or console.error) with the recorded
 * message; the recorded request answers below 400 (or at least does not fail); the click gets
 * a response (a DOM change, a same-origin request or a navigation). Each check is split in
 * what must run before the first page opens, right before the triggering step, and after it.
 *
 * A failing check's output reaches whoever runs the test, often an agent with a shell, outside
 * any marking of untrusted data: it compares counts and booleans under labels in our own words,
 * and the recorded strings it matches against are constants at the top of the file, far from
 * the lines Playwright quotes around a failure.
 */
import { lit } from './code'
import type { Failure } from './failure'

export interface Check {
  /** Module-level constants: what the recording saw, for matching only. */
  constants: string[]
  /** Before the first page opens. */
  setup: string[]
  /** Right before the step that triggers the failure. */
  before: string[]
  /** After that step; its first two lines are ours (Playwright quotes two lines above a failure). */
  after: string[]
  /** What the check cannot see, for the answer's limitations. */
  limitations: string[]
}

const RECORDED_NOTE =
  '// What the recording saw, written by the recorded page: matched against, never printed.'
/** Methods a label may name; anything else a page reported is "a request". */
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])

const FLAG = '(window as unknown as { __reproChanged?: boolean })'

function errorCheck(failure: Extract<Failure, { kind: 'error' }>): Check {
  const what = failure.console
    ? 'console.error messages or uncaught errors with the recorded message'
    : 'uncaught errors with the recorded message'
  return {
    constants: [RECORDED_NOTE, `const RECORDED_MESSAGE = ${lit(failure.message)}`],
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
      `expect(errors.filter((text) => text.includes(RECORDED_MESSAGE)).length, ${lit(what)}).toBe(0)`,
    ],
    limitations: [],
  }
}

function requestCheck(failure: Extract<Failure, { kind: 'request' }>): Check {
  const method = METHODS.has(failure.method) ? failure.method : 'a'
  const matcher = (request: string, url: string) =>
    `${request}.method() === RECORDED_METHOD && new URL(${url}).pathname === RECORDED_PATH`
  const constants = [
    RECORDED_NOTE,
    `const RECORDED_METHOD = ${lit(failure.method)}`,
    `const RECORDED_PATH = ${lit(failure.path)}`,
  ]
  if (failure.status === 0) {
    return {
      constants,
      setup: [],
      before: [
        '// The recorded request got no answer: count failures of that request.',
        'let failedRequests = 0',
        "page.on('requestfailed', (request) => {",
        `  if (${matcher('request', 'request.url()')}) failedRequests++`,
        '})',
      ],
      after: [
        '// Give the request time to fail as it did when recorded.',
        'await page.waitForTimeout(2_000)',
        `expect(failedRequests, ${lit(`${method} request to the recorded path failed without an answer (recorded)`)}).toBe(0)`,
      ],
      limitations: [
        'The request got no answer in the recording; the test checks that it does not fail. A request the browser never sends (an invalid URL, blocked by CORS) cannot be seen this way.',
      ],
    }
  }
  const status = failure.status >= 100 && failure.status <= 599 ? String(failure.status) : 'an error status'
  return {
    constants,
    setup: [],
    before: [
      `// The recording saw that request answer ${status}: wait for it.`,
      'const response = page.waitForResponse(',
      `  (answer) => ${matcher('answer.request()', 'answer.url()')},`,
      ')',
    ],
    after: [
      '// The answer the recorded request gets now.',
      'const answer = await response',
      `expect(answer.status(), ${lit(`${method} request to the recorded path answered ${status} (recorded)`)}).toBeLessThan(400)`,
    ],
    limitations: [],
  }
}

function clickCheck(failure: Extract<Failure, { kind: 'click' }>): Check {
  const what = failure.rage ? 'The repeated clicks on' : 'The click on'
  return {
    constants: [],
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
      '// Any response to the click within 3 seconds: a request, a navigation or a DOM change.',
      'const responded = async () =>',
      '  requested ||',
      '  page.url() !== urlBefore ||',
      `  (await page.evaluate(() => ${FLAG}.__reproChanged === true).catch(() => true))`,
      `await expect.poll(responded, { message: ${lit(`${what} the recorded element produced no response (no DOM change, request or navigation)`)}, timeout: 3_000 }).toBe(true)`,
    ],
    limitations: [
      'Any DOM change, same-origin request or navigation after the click counts as a response; a page that changes by itself (timers, animations) can hide the dead click.',
    ],
  }
}

export function checkFor(failure: Failure): Check {
  switch (failure.kind) {
    case 'error':
      return errorCheck(failure)
    case 'request':
      return requestCheck(failure)
    case 'click':
      return clickCheck(failure)
  }
}
