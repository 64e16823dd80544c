import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { and, asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { POST as mcpRoute } from '@/app/api/mcp/route'
import { sourcemapFiles } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { INVALID_CURSOR } from '@/lib/pagination/cursor'
import { sourcemapFolder } from '@/lib/sourcemaps/blob-key'
import { createBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { api, sourcemapsApi } from '../helpers/data-api'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freezeRateLimitClock } from '../helpers/frozen-rate-limit'

/**
 * Source map uploads and their management over HTTP, through the real route handlers:
 * POST/GET /api/v1/sourcemaps, GET/DELETE /api/v1/sourcemaps/{release} (docs/source-maps.md).
 */

let database: TestDatabase
let blobs: BlobStore
const keys = { uploadA: '', readA: '', writeIssuesA: '', uploadB: '', readB: '' }
let orgA: string
let orgB: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  blobs = createBlobStore({ kind: 'local', root: mkdtempSync(path.join(tmpdir(), 'sourcemaps-')) })
  setBlobStoreForTests(blobs)
  orgA = (await createOrganization(database.db, { name: 'Acme' })).id
  orgB = (await createOrganization(database.db, { name: 'Other' })).id
  const key = async (organizationId: string, options: { write?: boolean; sourcemaps?: boolean } = {}) =>
    (await createKey(database.db, { organizationId, type: 'api', ...options })).key
  keys.uploadA = await key(orgA, { sourcemaps: true })
  keys.readA = await key(orgA)
  keys.writeIssuesA = await key(orgA, { write: true })
  keys.uploadB = await key(orgB, { sourcemaps: true })
  keys.readB = await key(orgB)
})
afterAll(async () => {
  setBlobStoreForTests(undefined)
  useDatabase(undefined)
  await database.close()
})
freezeRateLimitClock()

type Body = Record<string, unknown>
type FilePart = { name: string; body: string | Uint8Array }

const map = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ version: 3, sources: ['src/app.ts'], names: [], mappings: 'AAAA;AACA', ...extra })

/**
 * The body curl sends for `-F release=… -F "file=@dist/app.js;filename=assets/app.js"`: one
 * part per field, the file's path in the part's filename, application/octet-stream.
 */
function curlBody(fields: Record<string, string>, files: FilePart[]) {
  const boundary = `------------------------${randomBytes(8).toString('hex')}`
  const chunks: Buffer[] = []
  for (const [name, value] of Object.entries(fields))
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    )
  for (const file of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      Buffer.from(file.body),
      Buffer.from('\r\n'),
    )
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

async function upload(token: string, fields: Record<string, string>, files: FilePart[], gzip = false) {
  const { body, contentType } = curlBody(fields, files)
  return sourcemapsApi.upload(token, new Uint8Array(gzip ? gzipSync(body) : body), {
    'content-type': contentType,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  })
}

async function rowsOf(organizationId: string, release?: string) {
  return database.db
    .select()
    .from(sourcemapFiles)
    .where(
      release
        ? and(eq(sourcemapFiles.organizationId, organizationId), eq(sourcemapFiles.release, release))
        : eq(sourcemapFiles.organizationId, organizationId),
    )
    .orderBy(asc(sourcemapFiles.url))
}

/** Everything stored for an organization: a refusal must leave it as it was. */
async function stored(organizationId: string) {
  return {
    rows: await rowsOf(organizationId),
    blobs: (await blobs.list(sourcemapFolder(organizationId))).sort(),
  }
}

const DEBUG_ID = '4E4BA1C2-7D3F-4B8E-9C55-0D1E2F3A4B5C'
const CHUNK_DEBUG_ID = '11111111-2222-4333-8444-555555555555'

describe('POST /api/v1/sourcemaps', () => {
  it('stores each map paired with its minified file, debug IDs read and lowercased, as curl sends it', async () => {
    const appMap = map()
    const response = await upload(keys.uploadA, { release: 'r1' }, [
      {
        name: 'assets/app.js',
        body: `console.log(1)\n//# debugId=${DEBUG_ID}\n//# sourceMappingURL=app.js.map\n`,
      },
      { name: 'assets/app.js.map', body: appMap },
      // Paired through its comment: the map's own name says nothing about the file.
      { name: 'assets/chunk-3f2a.js', body: 'x()\n//# sourceMappingURL=../maps/chunk.map' },
      { name: 'maps/chunk.map', body: map({ debug_id: CHUNK_DEBUG_ID }) },
      // A file without a map is only looked at, never stored.
      { name: 'assets/other.js', body: 'y()' },
    ])
    expect(response.status).toBe(201)
    expect(await response.json()).toEqual({
      release: 'r1',
      files: [
        { url: '~/assets/app.js', debugId: DEBUG_ID.toLowerCase(), sizeBytes: appMap.length },
        { url: '~/assets/chunk-3f2a.js', debugId: CHUNK_DEBUG_ID, sizeBytes: expect.any(Number) },
      ],
    })
    const rows = await rowsOf(orgA, 'r1')
    expect(rows.map((r) => r.url)).toEqual(['~/assets/app.js', '~/assets/chunk-3f2a.js'])
    const appRow = rows[0]!
    expect(appRow.blobKey).toMatch(new RegExp(`^sourcemaps/${orgA}/[0-9a-f]{64}\\.map$`))
    expect(Buffer.from((await blobs.get(appRow.blobKey))!).toString()).toBe(appMap)
    expect(await blobs.list(sourcemapFolder(orgA))).toHaveLength(2)
  })

  it('takes a gzip body and .gz parts, and stores addresses under the url prefix', async () => {
    const vendorMap = map({ sources: ['node_modules/lib/index.js'] })
    const response = await upload(
      keys.uploadA,
      { release: 'r2', urlPrefix: 'https://cdn.example.com/static/' },
      [{ name: 'assets/vendor.js.map.gz', body: gzipSync(vendorMap) }],
      true,
    )
    expect(response.status).toBe(201)
    expect(((await response.json()) as Body).files).toEqual([
      { url: 'https://cdn.example.com/static/assets/vendor.js', debugId: null, sizeBytes: vendorMap.length },
    ])
    const [row] = await rowsOf(orgA, 'r2')
    expect(Buffer.from((await blobs.get(row!.blobKey))!).toString()).toBe(vendorMap)
  })

  it('replaces the row of a re-uploaded release and address, and drops the blob nothing uses', async () => {
    const [before] = await rowsOf(orgA, 'r2')
    const newer = map({ sources: ['node_modules/lib/index.js', 'node_modules/lib/util.js'] })
    const response = await upload(
      keys.uploadA,
      { release: 'r2', urlPrefix: 'https://cdn.example.com/static' },
      [{ name: 'assets/vendor.js.map', body: newer }],
    )
    expect(response.status).toBe(201)
    const after = await rowsOf(orgA, 'r2')
    expect(after).toHaveLength(1)
    expect(after[0]!.id).toBe(before!.id)
    expect(after[0]!.sizeBytes).toBe(newer.length)
    expect(after[0]!.blobKey).not.toBe(before!.blobKey)
    expect(await blobs.get(before!.blobKey)).toBeNull()
  })

  it('refuses, storing nothing, what the key may not do or the body may not hold', async () => {
    const before = await stored(orgA)
    const ok: FilePart[] = [{ name: 'a.js.map', body: map() }]
    const cases: [Promise<Response>, number, string | RegExp][] = [
      [upload(keys.readA, { release: 'x' }, ok), 403, 'Missing required scope: write:sourcemaps'],
      [upload(keys.writeIssuesA, { release: 'x' }, ok), 403, 'Missing required scope: write:sourcemaps'],
      [
        upload(keys.uploadA, { release: 'x' }, [...ok, { name: 'b.js.map', body: '{"version":3,' }]),
        400,
        'b.js.map is not valid JSON: a source map must be a JSON object',
      ],
      [upload(keys.uploadA, {}, ok), 400, /^Missing release/],
      [upload(keys.uploadA, { release: 'r'.repeat(201) }, ok), 400, 'release must be at most 200 characters'],
      [
        upload(keys.uploadA, { release: 'x', urlPrefix: 'ftp://cdn.example.com' }, ok),
        400,
        /^urlPrefix must be/,
      ],
      [upload(keys.uploadA, { release: 'x', urlPrefix: 'cdn.example.com' }, ok), 400, /^urlPrefix must be/],
      [
        upload(
          keys.uploadA,
          { release: 'x' },
          Array.from({ length: 201 }, (_, i) => ({ name: `f${i}.js.map`, body: map() })),
        ),
        400,
        'Too many files: at most 200 per request',
      ],
      [
        upload(keys.uploadA, { release: 'x' }, [
          { name: 'i.js.map', body: JSON.stringify({ version: 3, sections: [] }) },
        ]),
        400,
        /index map \(with sections\), which is not supported/,
      ],
      [
        upload(keys.uploadA, { release: 'x' }, [
          { name: 'bomb.js.map.gz', body: gzipSync(Buffer.alloc(21 * 1024 * 1024)) },
        ]),
        413,
        'bomb.js.map: at most 20 MB per file (uncompressed)',
      ],
      // The whole body decodes past 50 MB: refused while inflating, before any part is parsed.
      [
        upload(
          keys.uploadA,
          { release: 'x' },
          [...ok, { name: 'big.js', body: Buffer.alloc(51 * 1024 * 1024) }],
          true,
        ),
        413,
        'Source map upload too large: at most 50 MB per request (uncompressed)',
      ],
    ]
    for (const [pending, status, error] of cases) {
      const response = await pending
      const body = (await response.json()) as Body
      expect({ status: response.status, error: body.error }).toEqual({ status, error: expect.anything() })
      expect(body.error).toMatch(error)
    }
    const oversized = await sourcemapsApi.upload(keys.uploadA, new Uint8Array(50 * 1024 * 1024 + 1), {
      'content-type': 'multipart/form-data; boundary=x',
    })
    expect(oversized.status).toBe(413)
    expect(await stored(orgA)).toEqual(before)
  })

  it('takes a whole folder as the documented curl line sends it, nested and `[slug]` paths included', async () => {
    const docs = readFileSync(path.join(process.cwd(), 'docs/source-maps.md'), 'utf8')
    const line = docs
      .split('```sh\n')
      .map((block) => block.slice(0, block.indexOf('\n```')))
      .find((block) => block.includes('find dist'))!
    execFileSync('bash', ['-n', '-c', line])
    const root = mkdtempSync(path.join(tmpdir(), 'curl-folder-'))
    const files: Record<string, string> = {
      'dist/app/[slug]/page-abc.js': 'a()\n//# sourceMappingURL=page-abc.js.map\n',
      'dist/app/[slug]/page-abc.js.map': map({ sources: ['app/[slug]/page.tsx'] }),
      'dist/static/chunks/main-1a2b.js': 'b()\n',
      'dist/static/chunks/main-1a2b.js.map': map(),
      'dist/static/css/app.css': 'body{}',
    }
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
      writeFileSync(path.join(root, name), text)
    }
    // The documented line with curl replaced by one that prints its arguments.
    const printed = execFileSync('bash', ['-c', `curl() { printf '%s\\0' "$@"; }; ${line}`], {
      cwd: root,
      env: { ...process.env, KEY: keys.uploadA, GIT_SHA: 'folder-1' },
    })
    const args = printed.toString().split('\0').slice(0, -1)
    expect(args.slice(0, 5)).toEqual([
      '-fsS',
      '-H',
      `Authorization: Bearer ${keys.uploadA}`,
      '-F',
      'release=folder-1',
    ])
    expect(args.at(-1)).toBe('https://host/api/v1/sourcemaps')
    const parts = args.slice(5, -1)
    expect(parts.filter((_, i) => i % 2 === 0)).toEqual(parts.map(() => '-F').slice(0, parts.length / 2))
    const sent = parts
      .filter((_, i) => i % 2 === 1)
      .map((value) => {
        const [local, filename] = value.slice('file=@'.length).split(';filename=')
        return { local: local!, name: filename! }
      })
      .sort((a, b) => a.name.localeCompare(b.name))
    expect(sent).toEqual([
      { local: 'dist/app/[slug]/page-abc.js', name: 'app/[slug]/page-abc.js' },
      { local: 'dist/app/[slug]/page-abc.js.map', name: 'app/[slug]/page-abc.js.map' },
      { local: 'dist/static/chunks/main-1a2b.js', name: 'static/chunks/main-1a2b.js' },
      { local: 'dist/static/chunks/main-1a2b.js.map', name: 'static/chunks/main-1a2b.js.map' },
    ])
    // The body curl builds from those arguments, through the route.
    const response = await upload(
      keys.uploadA,
      { release: 'folder-1' },
      sent.map((part) => ({ name: part.name, body: readFileSync(path.join(root, part.local)) })),
    )
    expect(response.status).toBe(201)
    expect((await rowsOf(orgA, 'folder-1')).map((row) => row.url)).toEqual([
      '~/app/[slug]/page-abc.js',
      '~/static/chunks/main-1a2b.js',
    ])
    // The listings below count the releases of the other tests only.
    expect((await sourcemapsApi.deleteRelease(keys.uploadA, 'folder-1')).status).toBe(200)
  })

  it('builds the multipart body the way fetch does too (File parts named by their path)', async () => {
    const form = new FormData()
    form.set('release', 'r3')
    form.append('file', new File([map()], 'dist/app.mjs.map'))
    const response = await sourcemapsApi.upload(keys.uploadA, form)
    expect(response.status).toBe(201)
    expect(((await response.json()) as Body).files).toEqual([
      { url: '~/dist/app.mjs', debugId: null, sizeBytes: map().length },
    ])
  })
})

describe('an upload-only key', () => {
  it('reads nothing: every read endpoint answers the missing-scope error', async () => {
    for (const response of [
      await api.listIssues(keys.uploadA),
      await sourcemapsApi.listReleases(keys.uploadA),
      await sourcemapsApi.getRelease(keys.uploadA, 'r1'),
    ]) {
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual({ error: 'Missing required scope: read:service' })
    }
    const mcp = await mcpRoute(
      new Request('http://localhost:3000/api/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.uploadA}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
    )
    expect(mcp.status).toBe(403)
    expect(await mcp.json()).toMatchObject({ error: 'insufficient_scope' })
  })
})

describe('GET and DELETE /api/v1/sourcemaps/…', () => {
  it('lists releases with counts, sizes and last upload, and the files of one', async () => {
    const releases = (await (await sourcemapsApi.listReleases(keys.readA)).json()) as { releases: Body[] }
    expect(releases.releases.map((r) => r.release)).toEqual(['r3', 'r2', 'r1'])
    const r1 = releases.releases.find((r) => r.release === 'r1')!
    const r1Rows = await rowsOf(orgA, 'r1')
    expect(r1).toEqual({
      release: 'r1',
      files: 2,
      sizeBytes: r1Rows.reduce((sum, r) => sum + r.sizeBytes, 0),
      lastUploadedAt: expect.any(String),
    })
    expect(releases).toMatchObject({ nextCursor: null })
    const files = (await (await sourcemapsApi.getRelease(keys.readA, 'r1')).json()) as Body
    expect(files).toEqual({
      release: 'r1',
      files: r1Rows.map((r) => ({
        url: r.url,
        debugId: r.debugId,
        sizeBytes: r.sizeBytes,
        uploadedAt: r.uploadedAt.toISOString(),
      })),
      nextCursor: null,
    })
    expect((await sourcemapsApi.getRelease(keys.readA, 'nope')).status).toBe(404)
  })

  it('keeps organizations apart: B neither sees nor deletes A’s maps, and its own upload stays its own', async () => {
    const aBefore = await stored(orgA)
    expect(await (await sourcemapsApi.listReleases(keys.readB)).json()).toEqual({
      releases: [],
      nextCursor: null,
    })
    expect((await sourcemapsApi.getRelease(keys.readB, 'r1')).status).toBe(404)
    expect((await sourcemapsApi.deleteRelease(keys.uploadB, 'r1')).status).toBe(404)
    // The very same map as A's: stored again under B's folder, never pointing at A's blob.
    const response = await upload(keys.uploadB, { release: 'r1' }, [
      { name: 'assets/app.js.map', body: map() },
    ])
    expect(response.status).toBe(201)
    const [bRow] = await rowsOf(orgB)
    expect(bRow!.blobKey.startsWith(sourcemapFolder(orgB))).toBe(true)
    expect(await blobs.list(sourcemapFolder(orgB))).toEqual([bRow!.blobKey])
    expect(await stored(orgA)).toEqual(aBefore)
  })

  it('deletes a release’s rows and the blobs no other release uses', async () => {
    // r4 shares app.js.map's content with r1: its blob must outlive r1.
    await upload(keys.uploadA, { release: 'r4' }, [{ name: 'assets/app.js.map', body: map() }])
    const r1 = await rowsOf(orgA, 'r1')
    const shared = (await rowsOf(orgA, 'r4'))[0]!.blobKey
    expect(r1.map((r) => r.blobKey)).toContain(shared)
    const response = await sourcemapsApi.deleteRelease(keys.uploadA, 'r1')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ release: 'r1', deletedFiles: 2 })
    expect(await rowsOf(orgA, 'r1')).toEqual([])
    expect(await blobs.get(shared)).not.toBeNull()
    for (const row of r1.filter((r) => r.blobKey !== shared)) expect(await blobs.get(row.blobKey)).toBeNull()
    expect((await sourcemapsApi.deleteRelease(keys.readA, 'r4')).status).toBe(403)
  })
})

describe('paging GET /api/v1/sourcemaps and /api/v1/sourcemaps/{release}', () => {
  const paging = { org: '', key: '', otherOrg: '', otherKey: '' }
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute))

  beforeAll(async () => {
    paging.org = (await createOrganization(database.db, { name: 'Paged' })).id
    paging.otherOrg = (await createOrganization(database.db, { name: 'Paged neighbour' })).id
    paging.key = (await createKey(database.db, { organizationId: paging.org, type: 'api' })).key
    paging.otherKey = (await createKey(database.db, { organizationId: paging.otherOrg, type: 'api' })).key
    const row = (organizationId: string, release: string, url: string, uploadedAt: Date) => ({
      organizationId,
      release,
      url,
      blobKey: `${sourcemapFolder(organizationId)}/${release}-${url.length}.map`,
      sizeBytes: 10,
      uploadedAt,
    })
    await database.db.insert(sourcemapFiles).values([
      row(paging.org, 'p-a', '~/a.js', at(1)),
      row(paging.org, 'p-b', '~/b.js', at(4)),
      row(paging.org, 'p-c', '~/c.js', at(4)),
      row(paging.org, 'p-d', '~/d.js', at(2)),
      // p-e's last upload counts, not its first.
      row(paging.org, 'p-e', '~/e.js', at(0)),
      row(paging.org, 'p-e', '~/e2.js', at(5)),
      ...['~/5.js', '~/1.js', '~/4.js', '~/2.js', '~/3.js'].map((url) => row(paging.org, 'many', url, at(0))),
      // Another organization's releases between and alongside them.
      row(paging.otherOrg, 'o-a', '~/a.js', at(4)),
      row(paging.otherOrg, 'p-b', '~/b.js', at(3)),
      row(paging.otherOrg, 'o-c', '~/c.js', at(6)),
    ])
  })

  async function allPages(read: (cursor?: string) => Promise<Response>, field: string) {
    const pages: Body[][] = []
    let cursor: string | undefined
    do {
      const response = await read(cursor)
      expect(response.status).toBe(200)
      const page = (await response.json()) as Record<string, Body[]> & { nextCursor: string | null }
      pages.push(page[field]!)
      cursor = page.nextCursor ?? undefined
    } while (cursor && pages.length < 10)
    return pages
  }

  it('walks every release, two at a time, newest upload first then by name (p-b and p-c tie)', async () => {
    const pages = await allPages(
      (cursor) => sourcemapsApi.listReleases(paging.key, { limit: 2, cursor }),
      'releases',
    )
    expect(pages.map((p) => p.map((r) => r.release))).toEqual([
      ['p-e', 'p-b'],
      ['p-c', 'p-d'],
      ['p-a', 'many'],
    ])
    expect(pages[0]![0]).toEqual({
      release: 'p-e',
      files: 2,
      sizeBytes: 20,
      lastUploadedAt: at(5).toISOString(),
    })
  })

  it('walks a release’s files by address', async () => {
    const pages = await allPages(
      (cursor) => sourcemapsApi.getRelease(paging.key, 'many', { limit: 2, cursor }),
      'files',
    )
    expect(pages.map((p) => p.map((f) => f.url))).toEqual([
      ['~/1.js', '~/2.js'],
      ['~/3.js', '~/4.js'],
      ['~/5.js'],
    ])
  })

  it('refuses a bad cursor or limit with the Data API’s messages', async () => {
    const first = (await (await sourcemapsApi.listReleases(paging.key, { limit: 2 })).json()) as {
      nextCursor: string
    }
    const [payload, signature] = first.nextCursor.split('.')
    for (const cursor of ['nope', `${payload}x.${signature}`, `${first.nextCursor}.x`, 'a'.repeat(5000)]) {
      const response = await sourcemapsApi.listReleases(paging.key, { cursor })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ error: INVALID_CURSOR })
    }
    // A release list's cursor is not a file list's, nor one release's cursor another's.
    const files = (await (await sourcemapsApi.getRelease(paging.key, 'many', { limit: 1 })).json()) as {
      nextCursor: string
    }
    for (const [release, cursor] of [
      ['many', first.nextCursor],
      ['p-e', files.nextCursor],
    ] as const) {
      const response = await sourcemapsApi.getRelease(paging.key, release, { cursor })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ error: INVALID_CURSOR })
    }
    for (const limit of ['0', '501', 'two']) {
      const response = await sourcemapsApi.listReleases(paging.key, { limit })
      expect(await response.json()).toEqual({ error: 'limit must be an integer between 1 and 500' })
    }
    const response = await sourcemapsApi.getRelease(paging.key, 'many', { limit: 1001 })
    expect(await response.json()).toEqual({ error: 'limit must be an integer between 1 and 1000' })
  })

  it('never lets a cursor reveal another organization’s releases or files', async () => {
    const releases = (await (await sourcemapsApi.listReleases(paging.key, { limit: 2 })).json()) as {
      nextCursor: string
    }
    const files = (await (await sourcemapsApi.getRelease(paging.key, 'p-b', { limit: 1 })).json()) as Body
    expect(files.nextCursor).toBeNull()
    const many = (await (await sourcemapsApi.getRelease(paging.key, 'many', { limit: 1 })).json()) as {
      nextCursor: string
    }
    for (const response of [
      await sourcemapsApi.listReleases(paging.otherKey, { cursor: releases.nextCursor }),
      await sourcemapsApi.getRelease(paging.otherKey, 'many', { cursor: many.nextCursor }),
    ]) {
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ error: INVALID_CURSOR })
    }
    // The neighbour's own pages hold its releases only, though they interleave in time.
    const pages = await allPages(
      (cursor) => sourcemapsApi.listReleases(paging.otherKey, { limit: 1, cursor }),
      'releases',
    )
    expect(pages.flat().map((r) => r.release)).toEqual(['o-c', 'o-a', 'p-b'])
  })
})
