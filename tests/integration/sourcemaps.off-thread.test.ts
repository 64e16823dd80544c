import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { AnalysisPool, typeScriptWorker } from '@/lib/analysis-worker/pool'
import { setAnalysisPoolForTests } from '@/lib/analysis-worker/session-analysis'
import { getConfig, setConfigForTests } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { sourcemapFolder } from '@/lib/sourcemaps/blob-key'
import { createBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { sourcemapsApi } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'

/**
 * A source map upload does its heavy work off the thread that answers requests
 * (docs/source-maps.md, "Where the upload's work runs"): the maps' JSON is parsed, checked
 * and hashed in an analysis worker, within the analysis budget.
 */

let database: TestDatabase
let blobs: BlobStore
let orgId: string
let key: string
const defaults = getConfig()

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  blobs = createBlobStore({ kind: 'local', root: mkdtempSync(path.join(tmpdir(), 'sourcemaps-thread-')) })
  setBlobStoreForTests(blobs)
  orgId = (await createOrganization(database.db, { name: 'Acme' })).id
  key = (await createKey(database.db, { organizationId: orgId, type: 'api', sourcemaps: true })).key
  await setAnalysisPoolForTests(new AnalysisPool({ size: 1, idleMs: 60_000 }))
})
afterAll(async () => {
  setConfigForTests(defaults)
  await setAnalysisPoolForTests(undefined)
  setBlobStoreForTests(undefined)
  useDatabase(undefined)
  await database.close()
})

const small = JSON.stringify({ version: 3, sources: ['src/app.ts'], names: [], mappings: 'AAAA' })

/** The multipart body fetch sends, serialized up front: the test's own work is not measured. */
async function body(release: string, files: { name: string; text: string }[]) {
  const form = new FormData()
  form.set('release', release)
  for (const file of files) form.append('file', new File([file.text], file.name))
  const request = new Request('http://localhost/', { method: 'POST', body: form })
  return {
    bytes: new Uint8Array(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') ?? '',
  }
}

async function upload(release: string, files: { name: string; text: string }[]) {
  const { bytes, contentType } = await body(release, files)
  return sourcemapsApi.upload(key, bytes, { 'content-type': contentType })
}

/**
 * A map (just under 20 MB by default) whose JSON is slow to parse: many short strings, as a
 * large bundle's map has, rather than one long string that parses at memory speed; within what
 * symbolication reads (at most a million names and 100,000 sources, lib/symbolication/parse-map.ts).
 */
function largeMap(megabytes = 19.5): string {
  const names: string[] = []
  const sources: string[] = []
  let size = 0
  while (size < megabytes * 1024 * 1024) {
    const name = `n${names.length.toString(36)}`
    if (names.length < 999_000) names.push(name)
    else if (sources.length < 99_000) sources.push(`src/${'d/'.repeat(40)}${name}.ts`)
    else break
    size += names.length < 999_000 ? name.length + 3 : 90
  }
  return JSON.stringify({ version: 3, sources: ['src/app.ts', ...sources], names, mappings: 'AAAA' })
}

describe('a source map upload off the request thread', () => {
  it('parses a 20 MB map in the worker, never on the thread that answers requests', async () => {
    // A warm worker: what is observed is the upload, not loading the worker.
    expect((await upload('warm-up', [{ name: 'w.js.map', text: small }])).status).toBe(201)
    const text = largeMap()
    const large = await body('large', [{ name: 'assets/app.js.map', text }])

    // Structural, not timed (a gap measured against a parse flaked under CI load): every JSON
    // parse of this thread during the upload is seen, and none may be of the map.
    const parse = vi.spyOn(JSON, 'parse')
    let ticks = 0
    const heartbeat = setInterval(() => ticks++, 5)
    let response: Response
    try {
      response = await sourcemapsApi.upload(key, large.bytes, { 'content-type': large.contentType })
    } finally {
      clearInterval(heartbeat)
      parse.mockRestore()
    }
    expect(response.status).toBe(201)
    expect(((await response.json()) as { files: unknown[] }).files).toEqual([
      { url: '~/assets/app.js', debugId: null, sizeBytes: text.length },
    ])
    const largeParses = parse.mock.calls.filter(
      ([input]) => typeof input === 'string' && input.length > 1_000_000,
    )
    expect(largeParses).toHaveLength(0)
    // The loop kept turning while the worker parsed (a synchronous parse here would allow none).
    expect(ticks).toBeGreaterThan(0)
  }, 120_000)

  it('refuses a map the worker runs over the time budget on, storing nothing, and replaces the worker', async () => {
    const before = (await blobs.list(sourcemapFolder(orgId))).sort()
    const stuck = new AnalysisPool({
      size: 1,
      idleMs: 60_000,
      spawn: (options) =>
        typeScriptWorker(path.join(process.cwd(), 'tests/helpers/stuck-map-worker.ts'), options),
    })
    await setAnalysisPoolForTests(stuck)
    setConfigForTests({ ...defaults, analysis: { timeoutSeconds: 1, memoryMb: 128 } })
    try {
      const response = await upload('slow', [
        { name: 'a.js.map', text: small },
        { name: 'b.js.map', text: small },
      ])
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        error:
          'a.js.map: checking this source map took more than 1 s (limit ANALYSIS_TIMEOUT_SECONDS); nothing was stored',
      })
      expect(stuck.workerCount).toBe(0)
      expect((await blobs.list(sourcemapFolder(orgId))).sort()).toEqual(before)
    } finally {
      setConfigForTests(defaults)
      await setAnalysisPoolForTests(new AnalysisPool({ size: 1, idleMs: 60_000 }))
    }
  })

  it('refuses a map that needs more heap than the worker has, storing nothing', async () => {
    const before = (await blobs.list(sourcemapFolder(orgId))).sort()
    // Below the configurable minimum, so that a few MB of names are enough to run out.
    setConfigForTests({ ...defaults, analysis: { timeoutSeconds: 60, memoryMb: 16 } })
    try {
      const response = await upload('heavy', [{ name: 'heavy.js.map', text: largeMap(9) }])
      expect(response.status).toBe(413)
      expect(await response.json()).toMatchObject({
        error:
          'heavy.js.map: checking this source map needed more than 16 MB of memory (limit ANALYSIS_MEMORY_MB); nothing was stored',
      })
      expect((await blobs.list(sourcemapFolder(orgId))).sort()).toEqual(before)
    } finally {
      setConfigForTests(defaults)
    }
    // The next upload gets a fresh worker.
    expect((await upload('after-heavy', [{ name: 'ok.js.map', text: small }])).status).toBe(201)
  })
})
