/**
 * The recorder installs the way the docs say: `npm install https://YOUR-SERVICE/sdk.tgz` gives a
 * project `@session-replay/sdk`, which a bundler bundles and TypeScript types. The tarball is
 * packed by scripts/sdk-package.mjs (as `npm run build:sdk` does) into a folder of the test's own
 * and served by the /sdk.tgz route's handler from a loopback server, so no Next server is needed.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sdkFileResponse } from '@/lib/http/sdk-script'

const exec = promisify(execFile)
const root = process.cwd()
const serviceVersion = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }
).version

let work: string
let server: Server
let tarballUrl: string

/** Serves `/sdk.tgz` through the route's own response function, reading the test's build. */
function serve(appDir: string): Promise<Server> {
  const http = createServer((req, res) => {
    const url = `http://127.0.0.1${req.url ?? '/'}`
    const response =
      req.url === '/sdk.tgz'
        ? sdkFileResponse(
            new Request(url, { headers: { 'if-none-match': req.headers['if-none-match'] ?? '' } }),
            'sdk.tgz',
            appDir,
          )
        : new Response('not found', { status: 404 })
    res.writeHead(response.status, Object.fromEntries(response.headers))
    void response.arrayBuffer().then((body) => res.end(Buffer.from(body)))
  })
  return new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(http)))
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'sdk-package-test-'))
  const appDir = path.join(work, 'app')
  await exec(process.execPath, ['scripts/sdk-package.mjs', path.join(appDir, 'sdk', 'dist', 'sdk.tgz')], {
    cwd: root,
  })
  server = await serve(appDir)
  const address = server.address()
  tarballUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/sdk.tgz`
}, 60_000)

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  if (work) rmSync(work, { recursive: true, force: true })
})

describe('/sdk.tgz', () => {
  it('is a gzip download, cached like /sdk.js, with a content ETag', async () => {
    const response = await fetch(tarballUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/gzip')
    expect(response.headers.get('cache-control')).toBe('public, max-age=300')
    const body = new Uint8Array(await response.arrayBuffer())
    expect([body[0], body[1]]).toEqual([0x1f, 0x8b])
    const etag = response.headers.get('etag')!
    expect(etag).toMatch(/^"[\w-]+"$/)
    expect((await fetch(tarballUrl, { headers: { 'if-none-match': etag } })).status).toBe(304)
  })

  it('installs with npm into a project, bundles with esbuild and types with tsc', async () => {
    const project = path.join(work, 'project')
    mkdirSync(path.join(project, 'src'), { recursive: true })
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'scratch', version: '1.0.0', private: true }),
    )
    await exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarballUrl], {
      cwd: project,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    })

    const installed = path.join(project, 'node_modules', '@session-replay', 'sdk')
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >
    expect(manifest).toMatchObject({
      name: '@session-replay/sdk',
      version: serviceVersion,
      main: './dist/index.cjs',
      module: './dist/index.mjs',
      types: './index.d.ts',
    })
    expect(manifest.dependencies).toBeUndefined()
    expect(manifest.peerDependencies).toBeUndefined()
    const dependencies = (
      JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>
      }
    ).dependencies
    expect(dependencies['@session-replay/sdk']).toBe(tarballUrl)

    writeFileSync(
      path.join(project, 'src', 'main.ts'),
      [
        "import { identify, init, type RecorderOptions, setConsent, stop } from '@session-replay/sdk'",
        "const options: RecorderOptions = { apiKey: 'svc_pk_test', ingestUrl: 'https://ingest.example', consent: 'pending' }",
        'const started: boolean = init(options)',
        "setConsent('granted')",
        "identify('user-1', { email: 'ada@example.com' })",
        'const stopped: Promise<void> = stop()',
        'export { started, stopped }',
        // Types that are not `any`: these must be refused.
        '// @ts-expect-error apiKey is a string',
        "init({ apiKey: 1, ingestUrl: 'https://ingest.example' })",
        '// @ts-expect-error consent answers are granted or denied',
        "setConsent('maybe')",
        '',
      ].join('\n'),
    )

    const bundled = await build({
      absWorkingDir: project,
      entryPoints: ['src/main.ts'],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      metafile: true,
      logLevel: 'silent',
    })
    const code = bundled.outputFiles[0]!.text
    expect(Object.keys(bundled.metafile.inputs)).toContain('node_modules/@session-replay/sdk/dist/index.mjs')
    // The recorder itself, with rrweb bundled in (no dependency to install).
    expect(code).toContain('[session-replay]')
    expect(code).toContain('/api/sdk/replay')
    expect(code).toMatch(/rr_dataURL|rrweb/)

    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    for (const resolution of [
      ['--module', 'esnext', '--moduleResolution', 'bundler'],
      ['--module', 'nodenext', '--moduleResolution', 'nodenext'],
    ])
      await exec(
        process.execPath,
        [
          tsc,
          '--noEmit',
          '--strict',
          '--target',
          'es2022',
          '--lib',
          'es2022,dom',
          ...resolution,
          'src/main.ts',
        ],
        { cwd: project },
      ).catch((error: { stdout?: string }) => {
        throw new Error(`tsc refused the typed import (${resolution.join(' ')}):\n${error.stdout ?? error}`)
      })
  }, 180_000)
})
