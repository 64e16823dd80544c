/**
 * Session processing with source maps (docs/source-maps.md), on a real database: a session
 * with a release is analysed, its error frames symbolicated, and analysed again by original
 * frames, so the issue survives a rebuild; a failing symbolicator or a session without a
 * release is processed exactly as before. The symbolicator is a fake with the real signature.
 */
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues, replaySessions, sessionTimelineEntries } from '@/db/schema'
import { fingerprint, normaliseMessage } from '@/lib/analysis'
import { frameKey, type MinifiedFrame, type Symbolication } from '@/lib/analysis/frames'
import { page, SessionBuilder } from '@/lib/analysis/testing/events'
import { setAnalysisPoolForTests } from '@/lib/analysis-worker/session-analysis'
import { getConfig } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import type { JobsEngine, StepTools } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { type ProcessingDeps, processSession } from '@/lib/processing/process-session'
import type { SymbolicateFrames, SymbolicateRequest } from '@/lib/processing/symbolicator'
import { getBlobStore } from '@/lib/storage'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { ingestSession } from '../helpers/pipeline'

const ORIGIN = 'https://shop.example.com'
const MESSAGE = "Cannot read properties of undefined (reading 'total')"

let database: TestDatabase
let organizationId: string
let key: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Shop' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
})
afterAll(async () => {
  await setAnalysisPoolForTests(undefined)
  useDatabase(undefined)
  await database.close()
})

/** Steps as an engine runs them: results memoized as JSON, ids recorded. */
function recordingStep(): StepTools & { ids: string[] } {
  const ids: string[] = []
  return {
    ids,
    run: async (id, fn) => {
      ids.push(id)
      return JSON.parse(JSON.stringify((await fn()) ?? null))
    },
    sleep: async () => {},
  }
}

// Events handed to the engine are not run here: only processSession is under test.
const idleEngine: JobsEngine = {
  kind: 'in-process',
  send: async () => {},
  start: async () => {},
  stop: async () => {},
}

/** A session on the checkout page whose one error has the given minified stack, ending now. */
async function ingestError(externalId: string, frames: MinifiedFrame[]): Promise<string> {
  const stack = [
    `TypeError: ${MESSAGE}`,
    ...frames.map((f) => `    at ${f.fn} (${f.url}:${f.line}:${f.column})`),
  ].join('\n')
  const b = new SessionBuilder(Date.now() - 120_000)
    .load(`${ORIGIN}/checkout`, page([]))
    .wait(1000)
    .sdkError('TypeError', MESSAGE, stack)
    .wait(31_000)
    .mouseMove()
  await ingestSession(key, externalId, b.events, { final: false })
  const [row] = await database.db
    .select({ id: replaySessions.id })
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  return row!.id
}

async function setRelease(
  sessionId: string,
  release: string,
  debugIds: Record<string, string> | null = null,
) {
  await database.db.update(replaySessions).set({ release, debugIds }).where(eq(replaySessions.id, sessionId))
}

async function process(sessionId: string, symbolicate?: SymbolicateFrames, finalAttempt?: boolean) {
  const config = getConfig()
  const deps: ProcessingDeps = {
    db: database.db,
    blobs: getBlobStore(),
    jobs: idleEngine,
    baseUrl: config.baseUrl,
    ingestUrl: config.ingestUrl,
    symbolicate,
  }
  const step = recordingStep()
  const outcome = await processSession(deps, { sessionId, runId: `run-${sessionId}`, step, finalAttempt })
  return { outcome, steps: step.ids }
}

const frame = (fn: string, file: string, column: number): MinifiedFrame => ({
  fn,
  url: `${ORIGIN}/assets/${file}`,
  line: 1,
  column,
})

// Two builds of the same code: `checkout` minified to `t`, then to `e` in another chunk.
const R1 = [frame('t', 'app-3f9a2c1d.js', 48213), frame('n', 'app-3f9a2c1d.js', 1022)]
const R2 = [frame('e', 'app-77c0e1f2.js', 51877), frame('o', 'app-77c0e1f2.js', 990)]
const ORIGINAL = { fn: 'checkout', line: 12, column: 5, context: null }

/** The symbolicator of a release whose maps know the two top frames above. */
function fakeSymbolicator(calls: SymbolicateRequest[]): SymbolicateFrames {
  const sources: Record<string, string> = {
    [frameKey(R1[0]!)]: 'webpack://shop/./src/checkout.ts',
    [frameKey(R2[0]!)]: '../src/checkout.ts',
  }
  return async (request) => {
    calls.push(request)
    const frames: Symbolication['frames'] = {}
    for (const minified of request.frames) {
      const source = sources[frameKey(minified)]
      frames[frameKey(minified)] = source
        ? { minified, original: { ...ORIGINAL, source }, status: 'mapped' }
        : { minified, original: null, status: 'no_map' }
    }
    return { release: request.release, frames }
  }
}

async function jsErrorIssues() {
  return database.db
    .select()
    .from(issues)
    .where(and(eq(issues.organizationId, organizationId), eq(issues.kind, 'js_error')))
}

describe('processing a session whose release has source maps', () => {
  const originalFingerprint = fingerprint('js_error', [
    'TypeError',
    normaliseMessage(MESSAGE),
    'checkout src/checkout.ts',
  ])

  it('files the error under its original frame, described and shown by it', async () => {
    const calls: SymbolicateRequest[] = []
    const id = await ingestError('release-1', R1)
    await setRelease(id, '1.0.0', { [R1[0]!.url]: '0f4c3a62-8b1d-4e5f-9a7b-2c6d8e0f1a3b' })
    const { outcome, steps } = await process(id, fakeSymbolicator(calls))
    expect(outcome.status).toBe('processed')
    expect(steps).toEqual(
      expect.arrayContaining(['analyze', 'symbolicate', 'analyze-symbolicated', 'record']),
    )
    expect(calls).toEqual([
      {
        organizationId,
        release: '1.0.0',
        debugIds: { [R1[0]!.url]: '0f4c3a62-8b1d-4e5f-9a7b-2c6d8e0f1a3b' },
        frames: R1,
        // The whole stack, so each frame can be named by its caller's call site.
        stacks: [R1],
      },
    ])
    const [issue] = await jsErrorIssues()
    expect(issue).toMatchObject({ fingerprint: originalFingerprint, sessionCount: 1 })
    expect(issue!.description).toContain('in checkout (src/checkout.ts:12)')
    expect(issue!.stepsToReplicate).toMatch(
      /\n2\. TypeError: .* is thrown in checkout \(src\/checkout\.ts:12\) \(/,
    )
    expect(issue!.evidence).toMatchObject({
      release: '1.0.0',
      frames: [
        {
          minified: R1[0],
          status: 'mapped',
          original: { fn: 'checkout', source: 'webpack://shop/./src/checkout.ts' },
        },
        { minified: R1[1], status: 'no_map', original: null },
      ],
      stack: expect.arrayContaining([expect.stringContaining('app-3f9a2c1d.js:1:48213')]),
    })
    const [error] = await database.db
      .select({ entry: sessionTimelineEntries.entry })
      .from(sessionTimelineEntries)
      .where(and(eq(sessionTimelineEntries.sessionId, id), eq(sessionTimelineEntries.kind, 'error')))
    expect(error!.entry).toMatchObject({
      originalStack: `at checkout (src/checkout.ts:12:5)\nat n (${R1[1]!.url}:1:1022)`,
    })
  })

  it('joins the same issue from a new release whose minified frames all moved', async () => {
    const id = await ingestError('release-2', R2)
    await setRelease(id, '2.0.0')
    const { outcome } = await process(id, fakeSymbolicator([]))
    expect(outcome).toMatchObject({ status: 'processed', created: [] })
    const found = await jsErrorIssues()
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ fingerprint: originalFingerprint, sessionCount: 2 })
  })

  it('fails a run that will be retried when the symbolicator throws, and files nothing by minified frames', async () => {
    const id = await ingestError('symbolicator-blip', R1)
    await setRelease(id, '1.0.0')
    const before = (await jsErrorIssues()).length
    await expect(
      process(
        id,
        async () => {
          throw new Error('map store unreachable')
        },
        false,
      ),
    ).rejects.toThrow('map store unreachable')
    expect(await jsErrorIssues()).toHaveLength(before)
  })

  it('processes the session unsymbolicated when the symbolicator throws on the last attempt', async () => {
    const id = await ingestError('symbolicator-down', R1)
    await setRelease(id, '1.0.0')
    const { outcome, steps } = await process(id, async () => {
      throw new Error('map store unreachable')
    })
    expect(outcome).toMatchObject({ status: 'processed' })
    expect(steps).toContain('symbolicate')
    expect(steps).not.toContain('analyze-symbolicated')
    // Grouped by the minified frame, as without maps: an issue of its own.
    const minified = (await jsErrorIssues()).find((i) => i.fingerprint !== originalFingerprint)
    expect(minified).toMatchObject({ sessionCount: 1 })
    expect(minified!.description).toContain('in t (/assets/app-*.js)')
    expect(minified!.evidence).not.toHaveProperty('frames')
  })

  it('symbolicates a session without a release by the debug IDs it reported', async () => {
    const calls: SymbolicateRequest[] = []
    const id = await ingestError('debug-ids-only', R1)
    const debugIds = { [R1[0]!.url]: '0f4c3a62-8b1d-4e5f-9a7b-2c6d8e0f1a3b' }
    await database.db.update(replaySessions).set({ debugIds }).where(eq(replaySessions.id, id))
    const { outcome, steps } = await process(id, fakeSymbolicator(calls))
    expect(outcome.status).toBe('processed')
    expect(steps).toContain('analyze-symbolicated')
    // No release of its own: '' matches no release's addresses, only debug IDs.
    expect(calls).toEqual([expect.objectContaining({ release: '', debugIds })])
    const [issue] = (await jsErrorIssues()).filter((i) => i.fingerprint === originalFingerprint)
    expect(issue).toBeDefined()
    // The session names no release, so the issue's releases stay as they were.
    expect(issue!.lastRelease).not.toBe('')
  })

  it('never calls the symbolicator for a session without a release or debug IDs', async () => {
    const calls: SymbolicateRequest[] = []
    const id = await ingestError('no-release', R1)
    const { outcome, steps } = await process(id, fakeSymbolicator(calls))
    expect(outcome.status).toBe('processed')
    expect(calls).toEqual([])
    expect(steps).not.toContain('symbolicate')
    const minified = (await jsErrorIssues()).find((i) => i.fingerprint !== originalFingerprint)
    expect(minified).toMatchObject({ sessionCount: 2 })
  })
})
