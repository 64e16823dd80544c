import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { BlobAccessError } from '@vercel/blob'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { createBlobStore, getBlobStore, setBlobStoreForTests } from '@/lib/storage'
import { API_DEADLINE_MS, BlobDeadlineError } from '@/lib/storage/deadline'
import { InvalidBlobKeyError } from '@/lib/storage/keys'
import { LocalBlobStore } from '@/lib/storage/local'
import { S3BlobStore, type S3Choice } from '@/lib/storage/s3'
import type { BlobStore } from '@/lib/storage/types'
import { VercelBlobStore } from '@/lib/storage/vercel'
import { freePort } from '../helpers/free-port'
import { captureLogs } from '../helpers/logs'
import { type S3Server, startS3Server } from '../helpers/s3-server'
import { startVercelBlobFake, type VercelBlobFake } from '../helpers/vercel-blob-fake'

// The adapter must never depend on the environment's token; with this unset, a request that
// silently fell back to process.env would fail against the fake.
delete process.env.BLOB_READ_WRITE_TOKEN
// Failing requests must surface at once instead of after the SDK's ten exponential retries
process.env.VERCEL_BLOB_RETRIES = '0'

interface Harness {
  store: BlobStore
  /** Anything the adapter did outside the store's namespace (files beside the root, requests). */
  sideEffects(): unknown
  teardown(): Promise<void>
}

const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes))

async function collect(stream: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array; chunks: number }> {
  const parts: Uint8Array[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parts.push(value)
  }
  return { bytes: new Uint8Array(Buffer.concat(parts)), chunks: parts.length }
}

function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()
}

interface FrontRequest {
  method: string
  url: URL
  headers: IncomingHttpHeaders
  /** The body of a POST (DeleteObjects), once it has arrived. */
  body?: Buffer
}

/**
 * What the S3 front does with a request: pass it to the server, answer 503 as an overloaded
 * S3 does, take it and never answer, or answer DeleteObjects with a per-key failure.
 */
type FrontMode = 'forward' | 'unavailable' | 'hang' | 'delete-errors'

interface S3Front {
  readonly endpoint: string
  /** Every request the adapter sent, in order. */
  readonly requests: FrontRequest[]
  mode: FrontMode
  close(): Promise<void>
}

/** A loopback HTTP front for an S3 server that records requests and injects failures. */
async function startS3Front(target: string): Promise<S3Front> {
  const requests: FrontRequest[] = []
  const front: { mode: FrontMode } = { mode: 'forward' }
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', target)
    requests.push({ method: req.method ?? '', url, headers: req.headers })
    if (front.mode === 'hang') return
    if (front.mode === 'unavailable') {
      req.resume()
      res.writeHead(503, { 'content-type': 'application/xml' })
      res.end(
        '<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
      )
      return
    }
    if (front.mode === 'delete-errors' && req.method === 'POST' && url.searchParams.has('delete')) {
      req.resume()
      res.writeHead(200, { 'content-type': 'application/xml' })
      res.end(
        '<?xml version="1.0"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
          '<Error><Key>org/x/1.json</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>' +
          '</DeleteResult>',
      )
      return
    }
    const upstream = httpRequest(url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.destroy())
    if (req.method !== 'POST') return void req.pipe(upstream)
    const recorded = requests.at(-1)!
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      recorded.body = Buffer.concat(chunks)
      upstream.end(recorded.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    get mode() {
      return front.mode
    },
    set mode(mode: FrontMode) {
      front.mode = mode
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** The SDK's credential chain reads these; the adapter has no credential settings of its own. */
function giveSdkCredentials(server: S3Server): void {
  process.env.AWS_ACCESS_KEY_ID = server.accessKeyId
  process.env.AWS_SECRET_ACCESS_KEY = server.secretAccessKey
}

const s3Choice = (server: S3Server, endpoint = server.endpoint): S3Choice => ({
  kind: 's3',
  bucket: server.bucket,
  region: server.region,
  endpoint,
  forcePathStyle: true,
})

const harnesses: Record<'local' | 'vercel' | 's3', () => Promise<Harness>> = {
  async local() {
    const base = mkdtempSync(path.join(tmpdir(), 'blob-local-'))
    // The root does not exist yet: the adapter creates directories as needed
    const store = new LocalBlobStore(path.join(base, 'blobs'))
    return {
      store,
      sideEffects: () =>
        listTree(base).filter((entry) => entry !== 'blobs' && !entry.startsWith(`blobs${path.sep}`)),
      async teardown() {
        rmSync(base, { recursive: true, force: true })
      },
    }
  },
  async vercel() {
    const fake = await startVercelBlobFake({ pageSize: 2 })
    const store = new VercelBlobStore(fake.token)
    return {
      store,
      sideEffects: () => fake.requests.length,
      teardown: () => fake.close(),
    }
  },
  async s3() {
    const server = await startS3Server()
    giveSdkCredentials(server)
    const front = await startS3Front(server.endpoint)
    // Pages of two keys, so listing and deleting cross page and batch boundaries
    const store = new S3BlobStore(s3Choice(server, front.endpoint), { pageSize: 2 })
    return {
      store,
      sideEffects: () => front.requests.length,
      async teardown() {
        await front.close()
        await server.stop()
      },
    }
  },
}

describe.each(['local', 'vercel', 's3'] as const)('BlobStore contract: %s adapter', (kind) => {
  let harness: Harness
  let store: BlobStore

  beforeAll(async () => {
    harness = await harnesses[kind]()
    store = harness.store
  })
  afterAll(async () => {
    await harness.teardown()
  })

  it('reports its kind', () => {
    expect(store.kind).toBe(kind)
  })

  it('round-trips a string body (rrweb JSON exactly as sent)', async () => {
    const key = 'org/o1/sessions/s1/00000001.json'
    const events = JSON.stringify([{ type: 4, data: { href: 'https://example.com/é?q=1' }, timestamp: 1 }])
    await store.put(key, events, { contentType: 'application/json' })
    expect(text(await store.get(key))).toBe(events)
  })

  it('round-trips a binary body byte for byte', async () => {
    const key = 'org/o1/sessions/s1/binary.bin'
    const body = new Uint8Array(70_000)
    for (let i = 0; i < body.length; i++) body[i] = i % 256
    await store.put(key, body)
    const back = await store.get(key)
    expect(back).toBeInstanceOf(Uint8Array)
    expect(Buffer.from(back!).equals(Buffer.from(body))).toBe(true)
  })

  it('round-trips empty bodies and subarray views', async () => {
    await store.put('org/o1/empty/string.txt', '')
    expect(text(await store.get('org/o1/empty/string.txt'))).toBe('')
    await store.put('org/o1/empty/bytes.bin', new Uint8Array(0))
    expect((await store.get('org/o1/empty/bytes.bin'))?.byteLength).toBe(0)
    // Only the viewed bytes are stored, not the whole underlying buffer
    const view = new TextEncoder().encode('xxhelloxx').subarray(2, 7)
    await store.put('org/o1/empty/view.txt', view)
    expect(text(await store.get('org/o1/empty/view.txt'))).toBe('hello')
  })

  it('overwrites an existing key (a retried batch)', async () => {
    const key = 'org/o1/sessions/retry/00000001.json'
    await store.put(key, '[1]')
    await store.put(key, '[1,2]')
    expect(text(await store.get(key))).toBe('[1,2]')
    expect(await store.list('org/o1/sessions/retry/')).toEqual([key])
  })

  it('returns null for a missing key, from get and stream', async () => {
    expect(await store.get('org/o1/sessions/none/00000001.json')).toBeNull()
    expect(await store.stream('org/o1/sessions/none/00000001.json')).toBeNull()
    // A prefix of existing keys is not an object either
    expect(await store.get('org/o1/sessions')).toBeNull()
    expect(await store.stream('org/o1/sessions')).toBeNull()
  })

  it('streams a multi-megabyte object back with the same bytes', async () => {
    const key = 'org/o1/sessions/big/00000001.json'
    const body = new Uint8Array(randomBytes(6 * 1024 * 1024))
    await store.put(key, body)
    const stream = await store.stream(key)
    expect(stream).not.toBeNull()
    const { bytes, chunks } = await collect(stream!)
    expect(bytes.byteLength).toBe(body.byteLength)
    expect(Buffer.from(bytes).equals(Buffer.from(body))).toBe(true)
    // Delivered piecewise rather than as one buffer
    expect(chunks).toBeGreaterThan(1)
  })

  it('deletes keys and ignores unknown ones', async () => {
    const keys = ['org/del/s/1.json', 'org/del/s/2.json', 'org/del/s/3.json']
    for (const key of keys) await store.put(key, key)
    await store.delete([keys[0]!, 'org/del/s/unknown.json', keys[2]!, 'never/existed.json'])
    expect(await store.get(keys[0]!)).toBeNull()
    expect(await store.get(keys[2]!)).toBeNull()
    expect(text(await store.get(keys[1]!))).toBe(keys[1])
    expect(await store.list('org/del/')).toEqual([keys[1]])

    await store.delete([])
    await store.delete(['only/unknown.json'])
    await store.delete([keys[1]!])
    expect(await store.list('org/del/')).toEqual([])
    // The key can be written again after its directory was cleaned up
    await store.put(keys[1]!, 'again')
    expect(text(await store.get(keys[1]!))).toBe('again')
  })

  it('lists keys by string prefix, sorted', async () => {
    const keys = [
      'org/la/sessions/s1/00000002.json',
      'org/la/sessions/s1/00000001.json',
      'org/la/sessions/s10/00000001.json',
      'org/lb/sessions/s1/00000001.json',
    ]
    for (const key of keys) await store.put(key, 'x')
    expect(await store.list('org/la/sessions/s1/')).toEqual([
      'org/la/sessions/s1/00000001.json',
      'org/la/sessions/s1/00000002.json',
    ])
    // Plain string prefix, as Vercel Blob matches it
    expect(await store.list('org/la/sessions/s1')).toEqual([
      'org/la/sessions/s1/00000001.json',
      'org/la/sessions/s1/00000002.json',
      'org/la/sessions/s10/00000001.json',
    ])
    expect(await store.list('org/la/sessions/s1/00000001.json')).toEqual(['org/la/sessions/s1/00000001.json'])
    expect(await store.list('org/l')).toEqual([...keys].sort())
    expect(await store.list('org/nobody/')).toEqual([])
    expect(await store.list('nothing')).toEqual([])
    const all = await store.list('')
    expect(all).toEqual(expect.arrayContaining(keys))
    expect(all).toEqual([...all].sort())
  })

  const hostile = [
    '../x',
    '/etc/passwd',
    'a//b',
    'a\\b',
    'a\0b',
    '..',
    'a/../../x',
    '',
    'a/',
    '.tmp-x',
    'a?b#c',
  ]

  it.each(hostile)('rejects the hostile key %j everywhere and writes nothing', async (key) => {
    const before = await store.list('')
    const effects = harness.sideEffects()
    await expect(store.put(key, 'pwned')).rejects.toBeInstanceOf(InvalidBlobKeyError)
    await expect(store.put(key, new Uint8Array([1]))).rejects.toBeInstanceOf(InvalidBlobKeyError)
    await expect(store.get(key)).rejects.toBeInstanceOf(InvalidBlobKeyError)
    await expect(store.stream(key)).rejects.toBeInstanceOf(InvalidBlobKeyError)
    await expect(store.delete([key])).rejects.toBeInstanceOf(InvalidBlobKeyError)
    expect(harness.sideEffects()).toEqual(effects)
    expect(await store.list('')).toEqual(before)
  })

  it('deletes nothing when one key of a batch is hostile', async () => {
    await store.put('org/batch/keep.json', 'keep')
    const effects = harness.sideEffects()
    await expect(store.delete(['org/batch/keep.json', '../x'])).rejects.toBeInstanceOf(InvalidBlobKeyError)
    expect(harness.sideEffects()).toEqual(effects)
    expect(text(await store.get('org/batch/keep.json'))).toBe('keep')
  })

  it.each(['../', '/etc', 'a//', 'a\\', 'a\0'])('rejects the hostile prefix %j', async (prefix) => {
    await expect(store.list(prefix)).rejects.toBeInstanceOf(InvalidBlobKeyError)
  })
})

describe('local adapter specifics', () => {
  let base: string
  let root: string
  let store: LocalBlobStore

  beforeAll(() => {
    base = mkdtempSync(path.join(tmpdir(), 'blob-local-only-'))
    root = path.join(base, 'blobs')
    store = new LocalBlobStore(root)
  })
  afterAll(() => rmSync(base, { recursive: true, force: true }))

  it('stores a key as the file at that relative path and leaves no temporary files', async () => {
    await store.put('org/o/sessions/s/00000001.json', '[]')
    expect(listTree(root)).toEqual(
      ['org', 'org/o', 'org/o/sessions', 'org/o/sessions/s', 'org/o/sessions/s/00000001.json'].map((p) =>
        p.split('/').join(path.sep),
      ),
    )
  })

  it('never shows a reader a half-written object', async () => {
    const key = 'org/o/sessions/atomic/00000001.json'
    const a = 'a'.repeat(2 * 1024 * 1024)
    const b = 'b'.repeat(2 * 1024 * 1024)
    await store.put(key, a)
    let writing = true
    const writer = (async () => {
      for (let i = 0; i < 20; i++) await store.put(key, i % 2 ? a : b)
      writing = false
    })()
    const seen = new Set<string>()
    while (writing) {
      const got = text(await store.get(key))
      expect(got === a || got === b).toBe(true)
      seen.add(got![0]!)
    }
    await writer
    expect(seen.size).toBeGreaterThan(0)
  })

  it('removes directories emptied by delete, but not the root', async () => {
    await store.put('org/prune/sessions/s/1.json', '1')
    await store.put('org/prune/other.json', '2')
    await store.delete(['org/prune/sessions/s/1.json'])
    expect(listTree(path.join(root, 'org', 'prune'))).toEqual(['other.json'])
    await store.delete(['org/prune/other.json'])
    expect(readdirSync(root)).not.toContain('prune')
    await store.delete(await store.list(''))
    expect(readdirSync(root)).toEqual([])
  })

  it('ignores files it cannot have written when listing', async () => {
    const { writeFileSync } = await import('node:fs')
    writeFileSync(path.join(root, '.tmp-leftover'), 'x')
    writeFileSync(path.join(root, 'has space.json'), 'x')
    await store.put('visible.json', 'x')
    expect(await store.list('')).toEqual(['visible.json'])
  })
})

describe('vercel adapter protocol (against the local fake)', () => {
  let fake: VercelBlobFake
  let store: VercelBlobStore

  beforeAll(async () => {
    fake = await startVercelBlobFake({ pageSize: 2 })
    store = new VercelBlobStore(fake.token)
  })
  afterAll(() => fake.close())

  const lastRequest = (method: string) => fake.requests.filter((r) => r.method === method).at(-1)!

  it('puts privately, without random suffix, allowing overwrite, with the configured bearer token', async () => {
    await store.put('org/o/sessions/s/00000001.json', '[1]', { contentType: 'application/json' })
    const put = lastRequest('PUT')
    expect(put.path).toBe('/api/blob/')
    expect(put.query.get('pathname')).toBe('org/o/sessions/s/00000001.json')
    expect(put.headers.authorization).toBe(`Bearer ${fake.token}`)
    expect(put.headers['x-vercel-blob-access']).toBe('private')
    expect(put.headers['x-add-random-suffix']).toBe('0')
    expect(put.headers['x-allow-overwrite']).toBe('1')
    expect(put.headers['x-content-type']).toBe('application/json')
    expect(put.headers['x-vercel-blob-store-id']).toBe(fake.storeId)
    expect(put.headers['x-api-version']).toMatch(/^\d+$/)
    expect(put.body.toString()).toBe('[1]')
    expect(fake.blobs.get('org/o/sessions/s/00000001.json')?.contentType).toBe('application/json')
  })

  it('reads private content from the store host, bypassing the CDN cache, with the bearer token', async () => {
    await store.get('org/o/sessions/s/00000001.json')
    const read = lastRequest('GET')
    expect(read.host).toBe(`${fake.storeId}.private.blob.vercel-storage.com`)
    expect(read.path).toBe('/org/o/sessions/s/00000001.json')
    expect(read.query.get('cache')).toBe('0')
    expect(read.headers.authorization).toBe(`Bearer ${fake.token}`)
  })

  it('deletes by pathname through POST /delete', async () => {
    await store.delete(['org/o/sessions/s/00000001.json'])
    const post = lastRequest('POST')
    expect(post.path).toBe('/api/blob/delete')
    expect(post.headers.authorization).toBe(`Bearer ${fake.token}`)
    expect(JSON.parse(post.body.toString())).toEqual({ urls: ['org/o/sessions/s/00000001.json'] })
    expect(fake.blobs.size).toBe(0)
  })

  it('follows the list cursor until the last page', async () => {
    const keys = ['p/1.json', 'p/2.json', 'p/3.json', 'p/4.json', 'p/5.json']
    for (const key of keys) await store.put(key, 'x')
    const before = fake.requests.length
    expect(await store.list('p/')).toEqual(keys)
    const lists = fake.requests.slice(before)
    expect(lists.map((r) => [r.method, r.path, r.query.get('prefix')])).toEqual([
      ['GET', '/api/blob', 'p/'],
      ['GET', '/api/blob', 'p/'],
      ['GET', '/api/blob', 'p/'],
    ])
    expect(lists[0]!.query.get('cursor')).toBeNull()
    expect(lists[1]!.query.get('cursor')).toBeTruthy()
    expect(lists.every((r) => r.headers.authorization === `Bearer ${fake.token}`)).toBe(true)
  })

  it('fails with the SDK access error when the token is wrong', async () => {
    const wrong = new VercelBlobStore(`vercel_blob_rw_${fake.storeId}_wrongsecret`)
    await expect(wrong.put('p/x.json', 'x')).rejects.toBeInstanceOf(BlobAccessError)
    await expect(wrong.list('p/')).rejects.toBeInstanceOf(BlobAccessError)
    await expect(wrong.get('p/1.json')).rejects.toThrow(/403/)
  })
})

describe('s3 adapter protocol and failures (against s3rver)', () => {
  let server: S3Server
  let front: S3Front
  let store: S3BlobStore

  beforeAll(async () => {
    server = await startS3Server()
    giveSdkCredentials(server)
    front = await startS3Front(server.endpoint)
    store = new S3BlobStore(s3Choice(server, front.endpoint), { pageSize: 2 })
  })
  afterAll(async () => {
    await front?.close()
    await server?.stop()
  })
  const withMode = async (mode: FrontMode, run: () => Promise<void>) => {
    front.mode = mode
    try {
      await run()
    } finally {
      front.mode = 'forward'
    }
  }
  const since = (index: number) => front.requests.slice(index)

  it('puts path-style into the bucket with the content type, signed, without the SDK’s default checksums', async () => {
    const before = front.requests.length
    await store.put('org/o/sessions/s/00000001.json', '[1]', { contentType: 'application/json' })
    const [put, ...more] = since(before)
    expect(more).toEqual([])
    expect(put!.method).toBe('PUT')
    expect(put!.url.pathname).toBe(`/${server.bucket}/org/o/sessions/s/00000001.json`)
    expect(put!.headers['content-type']).toBe('application/json')
    expect(put!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=S3RVER\/\d{8}\/us-east-1\/s3\//)
    // WHEN_REQUIRED: a plain body, no trailing checksum that S3-compatible servers refuse
    expect(put!.headers['content-encoding']).toBeUndefined()
    expect(Object.keys(put!.headers).filter((h) => h.startsWith('x-amz-checksum'))).toEqual([])
  })

  it('follows the continuation token and deletes in batches of the page size', async () => {
    const keys = ['p/1.json', 'p/2.json', 'p/3.json', 'p/4.json', 'p/5.json']
    for (const key of keys) await store.put(key, 'x')
    let before = front.requests.length
    expect(await store.list('p/')).toEqual(keys)
    const lists = since(before)
    expect(
      lists.map((r) => [r.method, r.url.searchParams.get('prefix'), r.url.searchParams.get('max-keys')]),
    ).toEqual([
      ['GET', 'p/', '2'],
      ['GET', 'p/', '2'],
      ['GET', 'p/', '2'],
    ])
    expect(lists[0]!.url.searchParams.get('continuation-token')).toBeNull()
    expect(lists[1]!.url.searchParams.get('continuation-token')).toBeTruthy()

    before = front.requests.length
    await store.delete(keys)
    const deletes = since(before)
    expect(deletes.map((r) => [r.method, r.url.searchParams.has('delete')])).toEqual([
      ['POST', true],
      ['POST', true],
      ['POST', true],
    ])
    expect(await store.list('p/')).toEqual([])
    // Content-MD5 of the body, which servers that predate S3's CRC checksums require
    for (const request of deletes)
      expect(request.headers['content-md5']).toBe(createHash('md5').update(request.body!).digest('base64'))
  })

  it('skips objects it cannot have written when listing (a shared bucket)', async () => {
    await store.put('shared/ok.json', 'x')
    // Another writer of the bucket, with a key the adapter would refuse
    const other = new S3Client({ region: server.region, endpoint: server.endpoint, forcePathStyle: true })
    await other.send(new PutObjectCommand({ Bucket: server.bucket, Key: 'shared/has space.json', Body: 'x' }))
    other.destroy()
    expect(await store.list('shared/')).toEqual(['shared/ok.json'])
  })

  it('surfaces a per-key failure in the DeleteObjects answer as an error', async () => {
    await store.put('org/x/1.json', 'x')
    await withMode('delete-errors', async () => {
      await expect(store.delete(['org/x/1.json'])).rejects.toThrow(
        'S3: could not delete 1 of 1 objects (org/x/1.json: AccessDenied: Access Denied)',
      )
    })
  })

  it('fails at once when the server is down (connection refused), without waiting for the deadline', async () => {
    const down = new S3BlobStore(s3Choice(server, `http://127.0.0.1:${await freePort()}`), {
      deadlineMs: 20_000,
    })
    const refused = expect.objectContaining({ code: 'ECONNREFUSED' })
    await expect(down.put('org/x/2.json', 'x')).rejects.toEqual(refused)
    await expect(down.get('org/x/2.json')).rejects.toEqual(refused)
    await expect(down.list('org/')).rejects.toEqual(refused)
  })

  it('fails when the server answers 503, after the SDK’s few attempts', async () => {
    await withMode('unavailable', async () => {
      const before = front.requests.length
      const unavailable = expect.objectContaining({
        name: 'SlowDown',
        $metadata: expect.objectContaining({ httpStatusCode: 503 }),
      })
      await expect(store.put('org/x/3.json', 'x')).rejects.toEqual(unavailable)
      await expect(store.get('org/x/1.json')).rejects.toEqual(unavailable)
      await expect(store.stream('org/x/1.json')).rejects.toEqual(unavailable)
      await expect(store.list('org/')).rejects.toEqual(unavailable)
      await expect(store.delete(['org/x/1.json'])).rejects.toEqual(unavailable)
      // Retried, but only a few times each (maxAttempts 3)
      const sent = since(before).length
      expect(sent).toBeGreaterThanOrEqual(5)
      expect(sent).toBeLessThanOrEqual(15)
    })
  })

  it('gives up at its deadline when the server takes requests and never answers', async () => {
    const slow = new S3BlobStore(s3Choice(server, front.endpoint), { deadlineMs: 300 })
    await withMode('hang', async () => {
      await expect(slow.put('org/x/4.json', 'x')).rejects.toThrow(
        new BlobDeadlineError('S3: put did not finish within 300 ms'),
      )
      await expect(slow.get('org/x/1.json')).rejects.toBeInstanceOf(BlobDeadlineError)
      await expect(slow.stream('org/x/1.json')).rejects.toBeInstanceOf(BlobDeadlineError)
      await expect(slow.list('org/')).rejects.toBeInstanceOf(BlobDeadlineError)
      await expect(slow.delete(['org/x/1.json'])).rejects.toBeInstanceOf(BlobDeadlineError)
    })
  })

  it('gives both remote adapters the same 15 s deadline by default', () => {
    expect(API_DEADLINE_MS).toBe(15_000)
    expect(new S3BlobStore(s3Choice(server)).deadlineMs).toBe(API_DEADLINE_MS)
    expect(new VercelBlobStore('vercel_blob_rw_store_secret').deadlineMs).toBe(API_DEADLINE_MS)
  })

  it('signs for us-east-1 against an endpoint when neither S3_REGION nor the SDK’s chain names a region', async () => {
    const saved = { AWS_REGION: process.env.AWS_REGION, AWS_CONFIG_FILE: process.env.AWS_CONFIG_FILE }
    delete process.env.AWS_REGION
    process.env.AWS_CONFIG_FILE = path.join(tmpdir(), 'no-such-aws-config')
    try {
      const regionless = new S3BlobStore({ ...s3Choice(server, front.endpoint), region: undefined })
      const before = front.requests.length
      await regionless.put('org/region/1.json', 'r')
      expect(text(await regionless.get('org/region/1.json'))).toBe('r')
      expect(since(before)[0]!.headers.authorization).toMatch(/\/us-east-1\/s3\/aws4_request/)
    } finally {
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
    }
  })
})

describe('createBlobStore and getBlobStore', () => {
  afterAll(() => {
    setBlobStoreForTests(undefined)
    setConfigForTests(undefined)
  })

  it('builds the adapter the configuration chose', () => {
    expect(createBlobStore({ kind: 'local', root: '/tmp/nowhere' }).kind).toBe('local')
    expect(createBlobStore({ kind: 'vercel', token: 'vercel_blob_rw_store_secret' }).kind).toBe('vercel')
    const s3 = createBlobStore({ kind: 's3', bucket: 'replays', region: 'eu-west-1', forcePathStyle: false })
    expect(s3).toBeInstanceOf(S3BlobStore)
    expect((s3 as S3BlobStore).bucket).toBe('replays')
  })

  it('builds the S3 store from S3_* and logs where it writes, never credentials', () => {
    setConfigForTests(
      parseConfig({
        NODE_ENV: 'test',
        DATA_DIR: process.env.DATA_DIR,
        AUTH_SECRET: process.env.AUTH_SECRET,
        S3_BUCKET: 'replays',
        S3_ENDPOINT: 'https://minio-user:minio-password@minio.example.com:9000',
        S3_FORCE_PATH_STYLE: '1',
      }),
    )
    setBlobStoreForTests(undefined)
    const logs = captureLogs('info')
    try {
      expect(getBlobStore()).toBeInstanceOf(S3BlobStore)
    } finally {
      logs.restore()
    }
    const record = logs.records().find((r) => r.msg === 'blob store')
    expect(record).toMatchObject({
      blobStore: 's3',
      bucket: 'replays',
      endpoint: 'https://minio.example.com:9000',
    })
    expect(logs.lines.join('')).not.toContain('minio-password')
  })

  it('memoizes the configured store (local under DATA_DIR/blobs here)', () => {
    // Vitest puts Vite's BASE_URL=/ into process.env, so the configuration is built explicitly
    setConfigForTests(
      parseConfig({ NODE_ENV: 'test', DATA_DIR: process.env.DATA_DIR, AUTH_SECRET: process.env.AUTH_SECRET }),
    )
    setBlobStoreForTests(undefined)
    const first = getBlobStore()
    expect(first).toBe(getBlobStore())
    expect(first).toBeInstanceOf(LocalBlobStore)
    expect((first as LocalBlobStore).root).toBe(path.join(path.resolve(process.env.DATA_DIR!), 'blobs'))
  })
})
