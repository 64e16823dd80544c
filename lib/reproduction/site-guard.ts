/**
 * The fixed part of every generated test that keeps it on the site under test
 * (docs/reproduction.md, "What the file could be made to do"): no default site, one helper
 * through which every page.goto passes, a route guard that aborts navigations elsewhere (clicks,
 * redirects, popups), Chromium's sandbox, and the marker that tells the recorder on the site that
 * this traffic is a reproduction. None of it contains page text.
 */

/** The environment variable a machine that runs the test as root sets: Chromium's sandbox cannot start there. */
export const NO_SANDBOX_VARIABLE = 'REPRO_NO_SANDBOX'

/** Module-level code after the imports: the site under test and the helpers the steps use. */
export function siteGuardCode(options: { masked: boolean }): string[] {
  const lines = [
    '// The site under test. There is no default: an unchanged run never reaches the recorded site.',
    'const BASE_URL = siteUnderTest(process.env.REPRO_BASE_URL)',
    'const SITE = new URL(BASE_URL).origin',
    '',
    'function siteUnderTest(value: string | undefined): string {',
    '  if (!value)',
    '    throw new Error(',
    "      'Set REPRO_BASE_URL to a local or staging copy of the site (for example http://localhost:3000); never run this test against production.',",
    '    )',
    '  const url = new URL(value)',
    "  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('REPRO_BASE_URL must be an http(s) address.')",
    '  return url.href',
    '}',
    '',
    '/** Every page the test opens: a path of the site under test. "//host/…" or "/\\host/…" would leave it, so it is refused. */',
    'function onSite(path: string): string {',
    '  const url = new URL(path, BASE_URL)',
    "  if (url.origin !== SITE) throw new Error('Refused to open a page outside the site under test.')",
    '  return url.href',
    '}',
    '',
    '/**',
    ' * Aborts every navigation that would leave the site under test (a link, a form, a script, a',
    ' * popup, a frame). Playwright does not route the hops of a redirect, so a page of the site is',
    ' * fetched here without following redirects: a redirect within the site becomes a new navigation',
    ' * (which comes back here), a redirect elsewhere is aborted before anything is sent there.',
    ' */',
    'async function stayOnSite(context: BrowserContext): Promise<void> {',
    "  await context.route('**/*', async (route, request) => {",
    '    if (!request.isNavigationRequest()) return route.fallback()',
    "    if (new URL(request.url()).origin !== SITE) return route.abort('blockedbyclient')",
    '    const response = await route.fetch({ maxRedirects: 0 }).catch(() => null)',
    '    if (response === null) return route.abort()',
    '    const headers = response.headers()',
    '    const location = headers.location',
    '    if (response.status() < 300 || response.status() >= 400 || !location) return route.fulfill({ response })',
    "    if (!URL.canParse(location, request.url())) return route.abort('blockedbyclient')",
    '    const next = new URL(location, request.url())',
    "    if (next.origin !== SITE) return route.abort('blockedbyclient')",
    "    for (const name of ['location', 'content-length', 'content-encoding', 'transfer-encoding']) delete headers[name]",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: generated code, a template literal of its own
    "    return route.fulfill({ status: 200, headers: { ...headers, refresh: `0;url=${next.href}` }, body: '' })",
    '  })',
    '}',
  ]
  if (options.masked)
    lines.push(
      '',
      '/** Values the recorder masked are typed only into the site under test. */',
      'function expectOnSite(page: Page): void {',
      "  expect(new URL(page.url()).origin === SITE, 'still on the site under test').toBe(true)",
      '}',
      '',
      '/**',
      ' * Types a masked value from the environment; a password only into a password input, whatever',
      ' * the recording says the field is, so that a forged recording cannot send it anywhere else.',
      ' */',
      'async function fillMasked(page: Page, field: Locator, value: string | undefined, password: boolean) {',
      '  expectOnSite(page)',
      '  if (password) {',
      '    const isPassword = await field.evaluate(',
      "      (element) => element instanceof HTMLInputElement && element.type === 'password',",
      '    )',
      "    expect(isPassword, 'a password is typed only into a password input').toBe(true)",
      '  }',
      "  await field.fill(value ?? '')",
      '}',
    )
  lines.push(
    '',
    'test.use({',
    "  // A page that exploits the browser stays inside Chromium's sandbox. Set REPRO_NO_SANDBOX=1 only",
    "  // where the test runs as root (in a container), where Chromium's sandbox cannot start.",
    '  launchOptions: async ({ launchOptions }, use) =>',
    '    use({',
    '      ...launchOptions,',
    `      chromiumSandbox: process.env.${NO_SANDBOX_VARIABLE} !== '1',`,
    '      // The guard hands each page of the site to Chromium itself, and Chromium then cannot tell',
    "      // which network the page came from: its local-network check would refuse the page's",
    '      // requests to local services (an API or a script on localhost). Only pages of the site',
    '      // under test are ever loaded; every navigation elsewhere is aborted.',
    "      args: [...(launchOptions.args ?? []), '--disable-features=LocalNetworkAccessChecks'],",
    '    }),',
    '  // A service worker would answer navigations where the guard cannot see them.',
    "  serviceWorkers: 'block',",
    '})',
    '',
    '// The guard routes every request, and a routed request still open when the browser closes is',
    "// dropped: the page closes without it first, so the site's own last uploads (a recorder's",
    '// final batch at page close) go out as in a real visit.',
    'test.afterEach(async ({ page }) => {',
    "  await page.context().unrouteAll({ behavior: 'ignoreErrors' })",
    '  await page.close()',
    '})',
  )
  return lines
}

/** The first lines of the test's body: the guard, then the marker the site's recorder reads. */
export const TEST_START = [
  'await stayOnSite(page.context())',
  "// Marks this run's traffic as a reproduction: the recorder on the site keeps it out of every count.",
  'await page.addInitScript(() => {',
  "  Object.assign(window, { __SESSION_REPLAY_AUTOMATION__: 'reproduction' })",
  '})',
]
