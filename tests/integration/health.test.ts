import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { GET } from '@/app/api/health/route'
import { jobRuns } from '@/db/schema'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { useDatabase } from '@/lib/db'
import { checkHealth, resetHealthCacheForTests } from '@/lib/health/check'
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
  useRateLimiter,
} from '@/lib/ratelimit'
import { createBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { freePort } from '../helpers/free-port'
import { startS3Server } from '../helpers/s3-server'

let database: TestDatabase
let blob: BlobStore

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  setConfigForTests(
    parseConfig({ NODE_ENV: 'test', ...(database.url ? { DATABASE_URL: database.url } : {}) }),
  )
  blob = createBlobStore({ kind: 'local', root: mkdtempSync(path.join(tmpdir(), 'health-blob-')) })
  setBlobStoreForTests(blob)
  useRateLimiter(createMemoryRateLimiter())
})

afterAll(async () => {
  setBlobStoreForTests(undefined)
  useRateLimiter(undefined)
  useDatabase(undefined)
  setConfigForTests(undefined)
  await database.close()
})

beforeEach(() => resetHealthCacheForTests())

interface Body {
  status: string
  checks: Record<string, { ok: boolean; kind: string; latencyMs: number; error?: string; queued?: number }>
}

describe('GET /api/health', () => {
  it('answers 200 with every dependency reachable, uncached', async () => {
    const response = await GET()
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = (await response.json()) as Body
    expect(body.status).toBe('ok')
    expect(Object.keys(body.checks).sort()).toEqual(['blob', 'database', 'jobs', 'rateLimiter'])
    expect(body.checks.database).toMatchObject({ ok: true, kind: database.url ? 'postgres' : 'pglite' })
    expect(body.checks.blob).toMatchObject({ ok: true, kind: 'local' })
    expect(body.checks.rateLimiter).toMatchObject({ ok: true, kind: 'memory' })
    expect(body.checks.jobs).toMatchObject({ ok: true, kind: 'in-process', queued: 0 })
  })

  it('answers 503 naming the failing dependency, with no internal detail', async () => {
    const failing: BlobStore = {
      ...blob,
      kind: 'local',
      list: () => Promise.reject(new Error('EACCES: permission denied, scandir /secret/path')),
    }
    setBlobStoreForTests(failing)
    try {
      const response = await GET()
      expect(response.status).toBe(503)
      const text = await response.text()
      expect(text).not.toContain('/secret/path')
      const body = JSON.parse(text) as Body
      expect(body.status).toBe('degraded')
      expect(body.checks.blob).toMatchObject({ ok: false, error: 'unreachable' })
      expect(body.checks.database!.ok).toBe(true)
    } finally {
      setBlobStoreForTests(blob)
    }
  })

  it('probes an S3-compatible store by listing, and reports it unreachable once the server is gone', async () => {
    const server = await startS3Server()
    // The SDK's credential chain; the adapter has no credential settings of its own
    process.env.AWS_ACCESS_KEY_ID = server.accessKeyId
    process.env.AWS_SECRET_ACCESS_KEY = server.secretAccessKey
    try {
      setBlobStoreForTests(
        createBlobStore({
          kind: 's3',
          bucket: server.bucket,
          region: server.region,
          endpoint: server.endpoint,
          forcePathStyle: true,
        }),
      )
      const up = await GET()
      expect(up.status).toBe(200)
      expect(((await up.json()) as Body).checks.blob).toMatchObject({ ok: true, kind: 's3' })

      await server.stop()
      resetHealthCacheForTests()
      const down = await GET()
      expect(down.status).toBe(503)
      const text = await down.text()
      expect(text).not.toContain(server.endpoint)
      expect((JSON.parse(text) as Body).checks.blob).toMatchObject({
        ok: false,
        kind: 's3',
        error: 'unreachable',
      })
    } finally {
      setBlobStoreForTests(blob)
      await server.stop()
    }
  })

  it('shares one probe between the answers of a few seconds, so callers cannot drive the dependencies', async () => {
    let listings = 0
    const counting: BlobStore = {
      ...blob,
      kind: 'local',
      list: (prefix) => {
        listings++
        return blob.list(prefix)
      },
    }
    setBlobStoreForTests(counting)
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => GET()))
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200))
      await GET()
      expect(listings).toBe(1)
    } finally {
      setBlobStoreForTests(blob)
    }
  })

  it('reports an adapter that cannot be built as failing instead of answering 500', async () => {
    const report = await checkHealth({
      db: async () => database.db,
      databaseKind: 'test',
      blob: () => {
        throw new Error('BLOB_READ_WRITE_TOKEN is malformed')
      },
      rateLimiter: () => createMemoryRateLimiter(),
      jobsKind: 'in-process',
    })
    expect(report.status).toBe('degraded')
    expect(report.checks.blob).toMatchObject({ ok: false, kind: 'unknown', error: 'unreachable' })
  })

  it('probes a plain Redis limiter: ok when Redis answers, a short secret-free reason when it is down', async () => {
    // The probe's counter key expires by itself (two windows and a second after its first use).
    const keyPrefix = `health-test:${Date.now()}`
    const up = createRedisRateLimiter({ url: 'redis://127.0.0.1:6379', keyPrefix })
    const down = createRedisRateLimiter({ url: `redis://:hunter2@127.0.0.1:${await freePort()}`, keyPrefix })
    try {
      const probe = (rateLimiter: RateLimiter) =>
        checkHealth({
          db: async () => database.db,
          databaseKind: 'test',
          blob: () => blob,
          rateLimiter: () => rateLimiter,
          jobsKind: 'in-process',
        })
      expect((await probe(up)).checks.rateLimiter).toMatchObject({ ok: true, kind: 'redis' })
      const report = await probe(down)
      expect(report.status).toBe('degraded')
      expect(report.checks.rateLimiter).toMatchObject({ ok: false, kind: 'redis', error: 'unreachable' })
      expect(JSON.stringify(report)).not.toContain('hunter2')
    } finally {
      await Promise.all([up.close(), down.close()])
    }
  })

  it('answers within its deadline when a dependency hangs', async () => {
    const hanging: RateLimiter = { kind: 'memory', limit: () => new Promise(() => {}) }
    const report = await checkHealth({
      db: async () => database.db,
      databaseKind: 'test',
      blob: () => blob,
      rateLimiter: () => hanging,
      jobsKind: 'in-process',
      timeoutMs: 200,
    })
    expect(report.status).toBe('degraded')
    expect(report.checks.rateLimiter).toMatchObject({ ok: false, error: 'no answer within 200 ms' })
    expect(report.checks.rateLimiter.latencyMs).toBeLessThan(2_000)
  })

  it('reports a stalled in-process queue: a run waiting longer than the threshold', async () => {
    const now = Date.now()
    await database.db.insert(jobRuns).values({
      functionId: 'process-session',
      idempotencyKey: `health-${now}`,
      eventName: 'session/process',
      payload: {},
      maxAttempts: 3,
      runAfter: new Date(now - 20 * 60_000),
    })
    const report = await checkHealth({
      db: async () => database.db,
      databaseKind: 'test',
      blob: () => blob,
      rateLimiter: () => createMemoryRateLimiter(),
      jobsKind: 'in-process',
    })
    expect(report.checks.jobs).toMatchObject({ ok: false })
    expect(report.checks.jobs.error).toMatch(/^a queued background run has waited 1[0-9]{3} s$/)
    // Inngest keeps its own queue: rows here say nothing about it.
    const inngest = await checkHealth({
      db: async () => database.db,
      databaseKind: 'test',
      blob: () => blob,
      rateLimiter: () => createMemoryRateLimiter(),
      jobsKind: 'inngest',
    })
    expect(inngest.checks.jobs).toMatchObject({ ok: true, queued: 1 })
  })
})
