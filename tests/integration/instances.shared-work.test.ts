import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'
import { setOrganizationPlan } from '@/lib/orgs/set-plan'
import { createBlobStore } from '@/lib/storage'
import { createEndpoint } from '@/lib/webhooks/endpoints'
import { type RunningServer, startBuiltServer } from '../e2e/server'
import { recorderBatches } from '../helpers/batches'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { connectClient, textOf } from '../helpers/mcp'
import { endingNow, loadRecording } from '../helpers/pipeline'
import { type S3Server, startS3Server } from '../helpers/s3-server'
import { createTestPki, startReceiver, type TestPki, type TestReceiver } from '../helpers/webhooks'

/**
 * Two `npm start` processes on one Postgres, one S3-compatible server and one Redis, the
 * topology of a self-hosted installation that outgrew one box (docs/deployment.md). Traffic
 * of every kind goes through both; one is killed with SIGKILL in the middle of ingest, and
 * the survivor finishes its work once the dead one's claims run out. Then every accepted
 * batch must be stored once (row and object), every session processed once, every webhook
 * received once, the rate limits shared, and each schedule run once per tick.
 *
 * PGlite is one process's embedded database, so this runs on Postgres only.
 */

const DATABASE_URL = process.env.DATABASE_URL?.trim()
const REDIS_URL = 'redis://127.0.0.1:6379'
const LEASE_SECONDS = 10
const FINALIZER_SECONDS = 2
const INTERRUPTED = 'Interrupted: the worker stopped before the run finished'
/** Sessions of real recordings, each sent twice under different ids. */
const RECORDINGS = [
  'js-error-after-click',
  'network-500',
  'rage-click',
  'console-error',
  'dead-click',
  'network-failed',
  'same-error-3-sessions-1',
  'same-error-3-sessions-2',
  'same-error-3-sessions-3',
  'multi-page',
]
const EVENTS_PER_BATCH = 8

type Batch = ReturnType<typeof recorderBatches>[number]

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(250)
  }
}

/**
 * `npm start` runs the production build; a checkout without one gets it here (CI builds first).
 * An existing build is used as it is, like the browser tests do: after changing the app, run
 * `npm run build` again, or this tests the code of the last build.
 */
function ensureProductionBuild(): void {
  if (existsSync(path.join(process.cwd(), '.next', 'BUILD_ID'))) return
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } })
}

describe.skipIf(!DATABASE_URL)(
  'several instances share one Postgres, S3 server and Redis (Postgres only: PGlite is one process)',
  () => {
    let db: TestDatabase
    let s3: S3Server
    let pki: TestPki
    let receiver: TestReceiver
    const servers: RunningServer[] = []
    let sql: postgres.Sql
    let organizationId: string
    let ingestKeys: string[]
    let limitKey: string
    let apiKey: string
    let mcpKey: string

    beforeAll(async () => {
      ensureProductionBuild()
      db = await createTestDatabase()
      sql = postgres(db.url!, { max: 2, onnotice: () => {} })
      s3 = await startS3Server()
      // This process reads the bucket too (the check of stored objects), through the SDK's chain.
      process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId
      process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey
      pki = createTestPki()
      receiver = await startReceiver(pki.issue(['localhost']), (res) => res.writeHead(204).end())
      const scratch = mkdtempSync(path.join(tmpdir(), 'instances-'))
      const caFile = path.join(scratch, 'webhook-ca.pem')
      writeFileSync(caFile, pki.caCert)

      const org = await createOrganization(db.db, { name: 'Instances' })
      organizationId = org.id
      await setOrganizationPlan(db.db, { organizationId, plan: 'paid' })
      const key = async (type: 'ingest' | 'api' | 'mcp', name: string) =>
        (await createKey(db.db, { organizationId, type, name })).key
      ingestKeys = [await key('ingest', 'traffic 1'), await key('ingest', 'traffic 2')]
      limitKey = await key('ingest', 'over budget')
      apiKey = await key('api', 'reader')
      mcpKey = await key('mcp', 'agent')
      // Two endpoints, so that every event is two deliveries the instances must share out.
      for (const name of ['first', 'second'])
        await createEndpoint(db.db, {
          organizationId,
          name,
          url: `https://localhost:${receiver.port}/hooks/${name}`,
          events: ['issue.created', 'insight.generated'],
        })

      // Both start at once on the migrated database, as a rolling deploy's new instances do.
      const env = {
        DATABASE_URL: db.url!,
        ...s3.env,
        REDIS_URL,
        // The tests' secret: the webhook secrets above were encrypted with a key derived from it.
        AUTH_SECRET: process.env.AUTH_SECRET!,
        JOBS_LEASE_SECONDS: String(LEASE_SECONDS),
        FINALIZER_INTERVAL_SECONDS: String(FINALIZER_SECONDS),
        SESSION_IDLE_SECONDS: '5',
        INSIGHTS_INTERVAL_MINUTES: '1',
        RETENTION_CRON: '* * * * *',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
        NODE_EXTRA_CA_CERTS: caFile,
        WEBHOOK_RETRY_DELAYS_SECONDS: '1,2,3',
        LOG_LEVEL: 'info',
      }
      const started = await Promise.all([startBuiltServer(env), startBuiltServer(env)])
      servers.push(...started)
    }, 300_000)

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()))
      await receiver?.close()
      pki?.dispose()
      await s3?.stop()
      await sql?.end()
      await db?.close()
    })

    it('stores, processes, delivers, limits and schedules once across instances, through a SIGKILL', async () => {
      const [a, b] = servers as [RunningServer, RunningServer]
      const bothUpAt = Date.now()
      let bAlive = true
      let killedAt = Number.POSITIVE_INFINITY
      let turn = 0
      const accepted = new Set<string>()
      const answeredBy = { a: 0, b: 0 }

      /** Like a load balancer with client retries: alternate while both live, resend elsewhere on failure. */
      const send = async (batch: Batch, key: string): Promise<void> => {
        for (let attempt = 0; attempt < 6; attempt++) {
          const useB = bAlive && turn++ % 2 === 1
          const server = useB ? b : a
          try {
            const response = await fetch(`${server.baseUrl}/api/sdk/replay`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-service-api-key': key },
              body: JSON.stringify(batch),
            })
            if (response.status === 200) {
              accepted.add(`${batch.session.id}:${batch.replay.sequence}`)
              answeredBy[useB ? 'b' : 'a']++
              return
            }
            if (response.status < 500)
              throw new Error(`ingest answered ${response.status}: ${await response.text()}`)
          } catch (error) {
            if (!(error instanceof TypeError)) throw error
            // the connection died with the instance: the client sends the same batch again
          }
          await sleep(100)
        }
        throw new Error(`batch ${batch.session.id}:${batch.replay.sequence} was never accepted`)
      }

      // ---- Limits are shared: 100 batches a minute per key, counted across both instances.
      // The sliding window weighs the previous minute's count down as the minute passes: 100
      // calls straddling a boundary would no longer add up to the limit, so none straddle one.
      // 40 s of the minute are left for them: on a busy CI machine (three suites side by side)
      // they once took more than the 20 s this used to leave.
      const toBoundary = 60_000 - (Date.now() % 60_000)
      if (toBoundary < 40_000) await sleep(toBoundary + 1_000)
      const probeMinute = Math.floor(Date.now() / 60_000)
      // The minute the probe's session is created in, and the tick that writes its insight.
      const nextMinute = (Math.floor(Date.now() / 60_000) + 1) * 60_000
      const probe = recorderBatches({
        sessionId: `limits-${Date.now().toString(36)}`,
        events: Array.from({ length: 100 }, (_, i) => ({
          type: 3,
          data: { source: 2, type: 2, id: 1, x: i, y: i },
          timestamp: Date.now() - 60_000 + i,
        })),
        perBatch: 1,
        final: false,
      })
      const statuses: number[] = []
      for (const [i, batch] of probe.entries()) {
        const server = i % 2 === 0 ? a : b
        const response = await fetch(`${server.baseUrl}/api/sdk/replay`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-api-key': limitKey },
          body: JSON.stringify(batch),
        })
        statuses.push(response.status)
        if (response.status === 200) accepted.add(`${batch.session.id}:${batch.replay.sequence}`)
      }
      // Each instance saw 50: on its own counters neither would refuse yet.
      expect(statuses.filter((s) => s === 200)).toHaveLength(100)
      const over = { ...probe.at(-1)!, replay: { ...probe.at(-1)!.replay, sequence: 100 } }
      for (const server of [a, b]) {
        const response = await fetch(`${server.baseUrl}/api/sdk/replay`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-api-key': limitKey },
          body: JSON.stringify(over),
        })
        expect(Math.floor(Date.now() / 60_000), 'the limit probe ran within one minute').toBe(probeMinute)
        expect(response.status).toBe(429)
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
        expect(response.headers.get('x-ratelimit-limit')).toBe('100')
        expect(response.headers.get('x-ratelimit-remaining')).toBe('0')
      }

      // ---- Ingest through both, in two halves; B dies in the middle of the second.
      const sessions = RECORDINGS.flatMap((name, i) =>
        [0, 1].map((copy) =>
          recorderBatches({
            sessionId: `inst-${i}-${copy}-${Date.now().toString(36)}`,
            events: endingNow(loadRecording(name).events, 30_000),
            perBatch: EVENTS_PER_BATCH,
          }),
        ),
      )
      const sendSessions = async (list: Batch[][], beforeEach?: (index: number) => Promise<void>) => {
        let index = 0
        // Four sessions at a time, each in order, as four browsers would.
        await Promise.all(
          Array.from({ length: 4 }, async (_, lane) => {
            for (let s = lane; s < list.length; s += 4)
              for (const batch of list[s]!) {
                await beforeEach?.(index++)
                await send(batch, ingestKeys[s % ingestKeys.length]!)
              }
          }),
        )
      }
      const half = Math.floor(sessions.length / 2)
      await sendSessions(sessions.slice(0, half))

      // Reads through both while both live, once the first half is processed: the same answers
      // from either instance, over the Data API and over MCP.
      await until('the first half processed', 90_000, async () => {
        const [row] = await sql<{ processed: number; open: number }[]>`
          select count(*) filter (where status = 'processed')::int as processed,
            count(*) filter (where status <> 'processed')::int as open
          from replay_sessions where organization_id = ${organizationId}`
        return row && row.open === 0 && row.processed === half + 1 ? true : undefined
      })
      const issueIds = (server: RunningServer) =>
        fetch(`${server.baseUrl}/api/v1/issues?limit=200`, {
          headers: { authorization: `Bearer ${apiKey}` },
        }).then(async (response) => {
          expect(response.status).toBe(200)
          return ((await response.json()) as { issues: { issueId: string }[] }).issues.map((i) => i.issueId)
        })
      const listIssuesText = async (server: RunningServer) => {
        const client = await connectClient(new URL('/api/mcp', server.baseUrl), mcpKey)
        try {
          return textOf(
            (await client.callTool({ name: 'list_issues', arguments: { limit: 200 } })) as CallToolResult,
          )
        } finally {
          await client.close()
        }
      }
      // Each answer fences untrusted text with a fresh random marker; the rest must be equal.
      const unfenced = (text: string) => text.replaceAll(/\b[0-9a-f]{16}\b/g, 'marker')
      // Asked of both at once; a schedule (an insight's issue) may write between two answers, so
      // they must agree within a few tries, not on the first.
      const agreed = await until('the same answers from both instances', 15_000, async () => {
        const [listA, listB, textA, textB] = await Promise.all([
          issueIds(a),
          issueIds(b),
          listIssuesText(a),
          listIssuesText(b),
        ])
        const same =
          JSON.stringify(listA) === JSON.stringify(listB) &&
          unfenced(textA) === unfenced(textB) &&
          listA.every((issueId) => textA.includes(issueId))
        return same ? { issueIds: listA } : undefined
      })
      expect(agreed.issueIds.length).toBeGreaterThan(0)

      // Both must be alive across at least one tick of the minute schedules (insights, retention).
      await sleep(nextMinute + 3_000 - Date.now())

      const secondHalf = sessions.slice(half)
      const total = secondHalf.reduce((n, batches) => n + batches.length, 0)
      await sendSessions(secondHalf, async (index) => {
        if (bAlive && index >= Math.floor(total / 2)) {
          bAlive = false
          killedAt = Date.now()
          await b.kill()
        }
      })
      expect(answeredBy.b).toBeGreaterThan(0)
      expect(killedAt).toBeLessThan(Number.POSITIVE_INFINITY)

      // ---- Settle: the survivor finishes everything, the dead instance's claims included. Not
      // before the minute tick is well past, so that its runs are among what must be done.
      await sleep(nextMinute + 12_000 - Date.now())
      const settledAt = await until('every session processed and every delivery made', 120_000, async () => {
        const [row] = await sql<{ open: number; pending: number; undispatched: number; running: number }[]>`
          select
            (select count(*)::int from replay_sessions
              where organization_id = ${organizationId} and status <> 'processed') as open,
            (select count(*)::int from webhook_deliveries
              where organization_id = ${organizationId} and status = 'pending') as pending,
            (select count(*)::int from outbox
              where organization_id = ${organizationId} and dispatched_at is null) as undispatched,
            (select count(*)::int from job_runs where status in ('queued', 'running')
              and run_after <= now() - interval '2 seconds') as running`
        return row && row.open + row.pending + row.undispatched + row.running === 0 ? Date.now() : undefined
      })
      await sleep(1_000)

      // ---- Every accepted batch stored once: one row and one object each, nothing else.
      const rows = await sql<{ session: string; sequence: number }[]>`
        select s.external_id as session, b.sequence from replay_batches b
        join replay_sessions s on s.id = b.session_id
        where b.organization_id = ${organizationId}`
      const stored = rows.map((r) => `${r.session}:${r.sequence}`).sort()
      expect(new Set(stored).size).toBe(stored.length)
      expect(stored).toEqual([...accepted].sort())
      const objects = await createBlobStore({
        kind: 's3',
        bucket: s3.bucket,
        region: s3.region,
        endpoint: s3.endpoint,
        forcePathStyle: true,
      }).list(`orgs/${organizationId}/sessions/`)
      expect(objects).toHaveLength(stored.length)

      // ---- Every session processed once: one `session processed` line each, over both logs.
      const sessionRows = await sql<{ id: string; status: string }[]>`
        select id::text, status from replay_sessions where organization_id = ${organizationId}`
      expect(sessionRows).toHaveLength(sessions.length + 1)
      expect(sessionRows.every((r) => r.status === 'processed')).toBe(true)
      const processedLines = (server: RunningServer) => {
        const counts = new Map<string, number>()
        for (const line of server.logs().split('\n')) {
          if (!line.includes('"session processed"')) continue
          const { sessionId } = JSON.parse(line) as { sessionId: string }
          counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1)
        }
        return counts
      }
      const byA = processedLines(a)
      const byB = processedLines(b)
      // Runs the killed instance held: the survivor took them over. Such a run may log twice (B
      // logged, then died before recording the run as done) or not at all (B committed the
      // session's record step and died before saving that step, so the rerun found the session
      // processed and skipped it); nothing was recorded twice either way (the counts below).
      const interrupted = new Set(
        (
          await sql<{ sessionId: string }[]>`
            select payload->>'sessionId' as "sessionId" from job_runs
            where function_id = 'process-session' and last_error = ${INTERRUPTED}`
        ).map((r) => r.sessionId),
      )
      for (const { id } of sessionRows) {
        const inA = byA.get(id) ?? 0
        const inB = byB.get(id) ?? 0
        expect(inA, `session ${id} in the survivor's log`).toBeLessThanOrEqual(1)
        expect(inB, `session ${id} in the killed instance's log`).toBeLessThanOrEqual(1)
        if (!interrupted.has(id)) expect(inA + inB, `session ${id}: processed once`).toBe(1)
      }
      expect(byA.size).toBeGreaterThan(0)
      expect(byB.size).toBeGreaterThan(0)
      // Issues of session analysis count their linked sessions. An insight's rise issue, which the
      // minute schedule files when a tick's interval holds enough sessions, counts the interval's
      // sessions and links none (lib/insights/generate.ts): it is not a count to check here.
      const counts = await sql<{ id: string; counted: number; linked: number }[]>`
        select i.id::text, i.session_count as counted,
          (select count(*)::int from issue_sessions l where l.issue_id = i.id) as linked
        from issues i where i.organization_id = ${organizationId} and i.source_type = 'session_analysis'`
      expect(counts.length).toBeGreaterThan(0)
      for (const issue of counts) expect(issue.counted, `issue ${issue.id}`).toBe(issue.linked)

      // ---- Every delivery received once (or, for one in flight when B died, again with the same id).
      const deliveries = await sql<{ id: string; endpoint: string; status: string }[]>`
        select d.event_id::text as id, e.name as endpoint, d.status from webhook_deliveries d
        join webhook_endpoints e on e.id = d.endpoint_id
        where d.organization_id = ${organizationId} and not d.is_test`
      const [events] = await sql<{ n: number }[]>`
        select count(*)::int as n from outbox
        where organization_id = ${organizationId} and name in ('issue/created', 'insight/generated')`
      expect(deliveries).toHaveLength(2 * (events?.n ?? 0))
      expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true)
      const receipts = new Map<string, number[]>()
      for (const request of receiver.received) {
        const id = String(request.headers['service-webhook-id'] ?? '')
        const key = `${request.url.slice('/hooks/'.length)} ${id}`
        receipts.set(key, [...(receipts.get(key) ?? []), request.at])
      }
      for (const delivery of deliveries) {
        const at = receipts.get(`${delivery.endpoint} ${delivery.id}`) ?? []
        expect(at.length, `delivery ${delivery.endpoint} ${delivery.id}`).toBeGreaterThanOrEqual(1)
        expect(at.length).toBeLessThanOrEqual(2)
        if (at.length === 2) {
          // Only a delivery B was making as it died: received just before the kill, and again
          // after it, from the instance that took the run over.
          expect(at[0]!, `delivery ${delivery.id}: first receipt`).toBeGreaterThanOrEqual(
            killedAt - LEASE_SECONDS * 1000,
          )
          expect(at[0]!, `delivery ${delivery.id}: first receipt`).toBeLessThanOrEqual(killedAt)
          expect(at[1]!, `delivery ${delivery.id}: second receipt`).toBeGreaterThan(killedAt)
        }
      }
      expect(receipts.size).toBe(deliveries.length)

      // ---- Each schedule ran once per tick: every tick while the instances ran has one run,
      // completed, never taken over except for a run the killed instance held.
      const scheduled = {
        'finalize-idle-sessions': FINALIZER_SECONDS * 1000,
        'outbox-sweep': FINALIZER_SECONDS * 1000,
        'generate-insights': 60_000,
        'retention-sweep': 60_000,
      }
      for (const [functionId, everyMs] of Object.entries(scheduled)) {
        const runs = await sql<{ key: string; status: string; lastError: string | null; updated: Date }[]>`
          select idempotency_key as key, status, last_error as "lastError", updated_at as updated
          from job_runs where function_id = ${functionId}`
        const byTick = new Map(runs.map((r) => [Date.parse(r.key), r]))
        const first = (Math.floor(bothUpAt / everyMs) + 1) * everyMs
        const ticks: number[] = []
        // Every tick up to 10 s before the settled moment, by which each was due and done.
        for (let tick = first; tick <= settledAt - 10_000; tick += everyMs) ticks.push(tick)
        expect(ticks.length, functionId).toBeGreaterThan(0)
        for (const tick of ticks) {
          const run = byTick.get(tick)
          expect(run, `${functionId} at ${new Date(tick).toISOString()}`).toBeDefined()
          expect(run!.status, `${functionId} at ${new Date(tick).toISOString()}`).toBe('completed')
          if (run!.lastError !== null) {
            expect(run!.lastError).toBe(INTERRUPTED)
            expect(tick).toBeLessThanOrEqual(killedAt)
          }
        }
      }
      const [taken] = await sql<{ n: number }[]>`
        select count(*)::int as n from job_runs where last_error = ${INTERRUPTED}`
      console.info(
        `instances: ${accepted.size} batches accepted (${answeredBy.a} by A, ${answeredBy.b} by B before its SIGKILL), ${sessionRows.length} sessions, ${counts.length} issues, ${deliveries.length} deliveries received ${receiver.received.length} times, ${taken?.n ?? 0} runs taken over from B`,
      )
      // The minute both instances ticked at covers the one the first sessions were created in:
      // one insight for it (the table would refuse a second), and its event delivered above.
      const insightRows = await sql<{ start: Date }[]>`
        select interval_start as start from insights where organization_id = ${organizationId}`
      expect(insightRows.map((r) => r.start.getTime())).toContain(nextMinute - 60_000)
    }, 420_000)
  },
)
