/**
 * Runs generated reproduction files with Playwright's own runner, as a user would: one folder
 * of `*.spec.ts` files, one run of all of them, a JSON report per file. Shared by the
 * reproduction browser tests (the real site and the forged trails).
 */
import { spawn } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { CHROMIUM_PATH } from './server'

export interface PlaywrightFileResult {
  ok: boolean
  /** Every result of the file as JSON (statuses, errors, stdout), for assertions and messages. */
  output: string
  /** The failures' messages as a terminal would show them, without colours. */
  messages: string
}

export interface PlaywrightRun {
  files: Map<string, PlaywrightFileResult>
  /** Errors outside any test, such as a file that did not load. */
  errors: string[]
}

interface PlaywrightReport {
  suites: {
    file: string
    specs: { ok: boolean; tests: { results: { errors: { message?: string }[] }[] }[] }[]
  }[]
  errors?: { message?: string }[]
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts a terminal colour
const COLOURS = /\u001b\[[0-9;]*m/g

/** A fresh folder with the runner's configuration; the files are written into it afterwards. */
export function preparePlaywrightDir(dir: string, options: { timeoutMs: number }): void {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    path.join(dir, 'playwright.config.mjs'),
    `export default ${JSON.stringify({
      testDir: '.',
      testMatch: '*.spec.ts',
      outputDir: 'out',
      workers: 1,
      retries: 0,
      timeout: options.timeoutMs,
      reporter: 'json',
      // No --no-sandbox here: the files turn the sandbox on unless REPRO_NO_SANDBOX=1.
      use: { headless: true, launchOptions: { executablePath: CHROMIUM_PATH } },
    })}\n`,
  )
}

export interface PlaywrightProcess {
  /** The runner's exit code: 0 when every test passed. */
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Playwright's own runner in `dir` (inside the checkout, so the files resolve @playwright/test
 * from its node_modules) with the configuration `config`. `env` adds the files' variables
 * (REPRO_BASE_URL, placeholders); REPRO_NO_SANDBOX is set because this machine runs the tests
 * as root, where Chromium's sandbox cannot start.
 */
export function spawnPlaywright(
  dir: string,
  config: string,
  env: Record<string, string>,
): Promise<PlaywrightProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(process.cwd(), 'node_modules/@playwright/test/cli.js'), 'test', '-c', config],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          NODE_ENV: 'test',
          CI: '1',
          FORCE_COLOR: '0',
          REPRO_NO_SANDBOX: '1',
          ...env,
        },
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** One run of every file in `dir`, prepared by preparePlaywrightDir, with a JSON report per file. */
export async function runPlaywright(dir: string, env: Record<string, string>): Promise<PlaywrightRun> {
  const { stdout, stderr } = await spawnPlaywright(dir, 'playwright.config.mjs', env)
  try {
    const report = JSON.parse(stdout) as PlaywrightReport
    const files = new Map<string, PlaywrightFileResult>()
    for (const suite of report.suites) {
      const results = suite.specs.flatMap((spec) => spec.tests.flatMap((t) => t.results))
      files.set(path.basename(suite.file), {
        ok: suite.specs.every((spec) => spec.ok),
        output: JSON.stringify(results),
        messages: results
          .flatMap((result) => result.errors.map((error) => error.message ?? ''))
          .join('\n')
          .replace(COLOURS, ''),
      })
    }
    return { files, errors: (report.errors ?? []).map((error) => error.message ?? '') }
  } catch (error) {
    throw new Error(
      `no JSON report from Playwright (${String(error)}):\n${stdout.slice(0, 4000)}\n${stderr.slice(0, 4000)}`,
    )
  }
}
