/**
 * The fixed files of the reproduction bundle (GET /api/v1/reproductions,
 * docs/releases.md#verification): the Playwright configuration, the reporter that posts each
 * result to POST /api/v1/issues/{issueId}/verifications, and the README. None of them holds
 * text from a recorded page: the only values written into them are the service's own address
 * and issue ids, both ours, written as JSON literals.
 */

export const BUNDLE_MANIFEST = 'reproductions.json'
export const BUNDLE_REPORTER = 'verification-reporter.mjs'

export const PLAYWRIGHT_CONFIG = `import { defineConfig } from '@playwright/test'

// The release guard's reproduction suite (docs/releases.md#release-guard-in-ci): one test per
// issue, run one at a time against REPRO_BASE_URL; the reporter posts each result when
// REPRO_VERIFY_KEY is set.
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  workers: 1,
  retries: 0,
  reporter: [['list'], ['./${BUNDLE_REPORTER}']],
})
`

/** The reporter, with the service's address as the default place to post to. */
export function verificationReporter(apiBaseUrl: string): string {
  return `// Posts each reproduction's result to the issue it reproduces
// (POST /api/v1/issues/{issueId}/verifications), when REPRO_VERIFY_KEY is set: a key with the
// write:verifications scope. A post that fails is reported here and never fails the run: the
// run's own outcome is the tests'.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const DEFAULT_API_URL = ${JSON.stringify(apiBaseUrl)}
const SUMMARY_CHARACTERS = 4000
const MAX_DURATION_MS = 86400000
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
// Terminal colour codes, then any other control character but newline and tab.
const ANSI = /\\u001b\\[[0-9;?]*[ -/]*[@-~]/g
const CONTROL = /(?![\\n\\t])\\p{Cc}/gu

function summaryOf(errors) {
  const text = errors
    .map((error) => error.message ?? error.value ?? '')
    .join('\\n\\n')
    .replace(ANSI, '')
    .replace(CONTROL, '')
    .trim()
  return text === '' ? undefined : Array.from(text).slice(0, SUMMARY_CHARACTERS).join('')
}

export default class VerificationReporter {
  constructor() {
    const here = path.dirname(fileURLToPath(import.meta.url))
    this.dir = here
    this.issues = new Map()
    for (const entry of JSON.parse(readFileSync(path.join(here, ${JSON.stringify(BUNDLE_MANIFEST)}), 'utf8')))
      if (UUID.test(entry.issueId)) this.issues.set(entry.file, entry.issueId)
    this.key = process.env.REPRO_VERIFY_KEY
    this.apiUrl = (process.env.REPRO_API_URL || DEFAULT_API_URL).replace(/\\/+$/, '')
    this.baseUrl = process.env.REPRO_BASE_URL
    this.release = process.env.REPRO_RELEASE || undefined
    // One post at a time, in the order the tests ended: the output reads in that order, and a
    // suite of 100 spends the write budget steadily rather than all at once.
    this.queue = Promise.resolve()
    this.sent = 0
    this.failedPosts = 0
  }

  printsToStdio() {
    return false
  }

  onBegin() {
    if (!this.key) console.log('verification: REPRO_VERIFY_KEY is not set, so no result is posted')
  }

  onTestEnd(test, result) {
    if (!this.key) return
    if (result.status === 'skipped') return
    const file = path.relative(this.dir, test.location.file)
    const issueId = this.issues.get(file)
    if (!issueId) return
    const body = {
      status: result.status === 'passed' ? 'passed' : 'failed',
      baseUrl: this.baseUrl,
      release: this.release,
      summary: result.status === 'passed' ? undefined : summaryOf(result.errors),
      durationMs: Math.min(MAX_DURATION_MS, Math.max(0, Math.round(result.duration))),
      runner: 'playwright',
    }
    this.sent++
    this.queue = this.queue.then(() => this.post(issueId, body))
  }

  async post(issueId, body) {
    const url = \`\${this.apiUrl}/api/v1/issues/\${issueId}/verifications\`
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { Authorization: \`Bearer \${this.key}\`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
      if (response.ok) {
        console.log(\`verification: issue \${issueId} \${body.status} (release \${body.release ?? 'not named'}) sent to \${url}: \${response.status}\`)
      } else {
        this.failedPosts++
        const answer = (await response.text()).slice(0, 300)
        console.error(\`verification: issue \${issueId} \${body.status} NOT recorded by \${url}: \${response.status} \${answer}\`)
      }
    } catch (error) {
      this.failedPosts++
      console.error(\`verification: issue \${issueId} \${body.status} NOT sent to \${url}: \${error?.message ?? error}\`)
    }
  }

  async onEnd() {
    await this.queue
    if (this.failedPosts > 0)
      console.error(\`verification: \${this.failedPosts} of \${this.sent} results were not recorded (see above); the run's outcome is the tests' own\`)
  }
}
`
}

/** The command that runs the suite in CI, for the README, the key form and the issue page. */
export function reproductionRunCommand(apiBaseUrl: string, verifyKey = '$REPRO_VERIFY_KEY'): string {
  return [
    `curl -fsS -H "Authorization: Bearer $REPRO_READ_KEY" "${apiBaseUrl}/api/v1/reproductions?format=tgz" | tar -xz`,
    'cd reproductions',
    `REPRO_BASE_URL=https://preview.example.com REPRO_RELEASE=3.2.0 REPRO_VERIFY_KEY=${verifyKey} npx playwright test`,
  ].join('\n')
}

export function bundleReadme(apiBaseUrl: string): string {
  return `# Reproductions

One Playwright test per issue (\`*.spec.ts\`), a configuration that runs them one at a time, and a
reporter (\`${BUNDLE_REPORTER}\`) that posts each result to the issue it reproduces, where the
issue page shows it ("fix verified in 3.2.0" or "reproduction still fails"). \`${BUNDLE_MANIFEST}\`
maps each file to its issue.

Read the tests before running them: their steps click what a recorded page offered. Run them only
against a local or preview deployment of the site, never production:

\`\`\`sh
npm install --no-save @playwright/test && npx playwright install chromium
REPRO_BASE_URL=https://preview.example.com \\
REPRO_RELEASE=3.2.0 \\
REPRO_VERIFY_KEY=<a key with the write:verifications scope> \\
npx playwright test
\`\`\`

- \`REPRO_BASE_URL\` (required): the deployment under test.
- \`REPRO_RELEASE\`: the release it runs, so a passed run says "fix verified in" that release.
- \`REPRO_VERIFY_KEY\`: without it the results are not posted.
- \`REPRO_API_URL\`: where to post, by default ${apiBaseUrl}.
- \`REPRO_NO_SANDBOX=1\` where Chromium's sandbox cannot start (a container running as root).

A test fails while its bug is there. The run fails when any test fails; a result that could not be
posted is reported on stderr and does not change that.
`
}
