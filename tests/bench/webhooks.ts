// npm run bench:webhooks: webhook deliveries end to end. BENCH_EVENTS issue.created events
// (default 5,000) are written to the outbox, fanned out to BENCH_ENDPOINTS endpoints (default
// 2; 10,000 deliveries) and delivered through the real path (URL checks, pooled pinned
// connections, signatures, batched attempt rows) to an HTTPS receiver on 127.0.0.1 in a
// child process, which checks every signature and counts each (endpoint, delivery id).
// Postgres with DATABASE_URL (a scratch database beside it, dropped at the end), else PGlite.
// This measures outbound work: there is no request into Next to compare with a floor route.
// `-- --through-engine`: instead of calling the fan-out and the sweep directly, hand the events
// to the embedded jobs engine (as commitWithEvents does after a commit) and let the fan-out
// jobs make the first attempts, as the app does; it reports the same figures.
import { type ChildProcess, fork } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ReceiverReport } from './webhooks-receiver'

process.env.DATA_DIR ??= mkdtempSync(path.join(tmpdir(), 'bench-webhooks-'))
process.env.AUTH_SECRET ??= 'bench-secret-bench-secret-bench-secret-0123456789'
process.env.LOG_LEVEL ??= 'warn'

const EVENTS_COUNT = Number(process.env.BENCH_EVENTS ?? 5000)
const ENDPOINTS = Math.max(1, Number(process.env.BENCH_ENDPOINTS ?? 2))
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64)
const PER_ENDPOINT = Number(process.env.BENCH_PER_ENDPOINT ?? 16)
// Fan-out jobs running at once (each event is one job in the app).
const FAN_OUT_PARALLEL = 8
// An organization has at most 3 active endpoints; two each keeps the cap out of the way.
const ENDPOINTS_PER_ORG = 2
const THROUGH_ENGINE = process.argv.includes('--through-engine')

const { openMigratedDatabase } = await import('@/db/migrate')
const { outbox, webhookDeliveries, webhookDeliveryAttempts } = await import('@/db/schema')
const { createOrganization } = await import('@/lib/orgs/create-organization')
const { createEndpoint } = await import('@/lib/webhooks/endpoints')
const { createDeliverer } = await import('@/lib/webhooks/deliver')
const { fanOutEvent } = await import('@/lib/webhooks/fan-out')
const { deliverDue } = await import('@/lib/webhooks/sweep')
const { createTestPki, loopbackResolver } = await import('../helpers/webhooks')
const { createScratchDatabase } = await import('./harness/database')
const { busyOtherWork, machineTicks, machinePercentBetween, postgresCpuMs, postgresMemory } = await import(
  './harness/machine'
)
const { count, eq } = await import('drizzle-orm')
// Loaded before the clock starts, so module loading is not counted as delivery work.
const { useDatabase: installDatabase } = await import('@/lib/db')
const { useDeliverer: installDeliverer } = await import('@/lib/webhooks/runtime')
const { parseConfig } = await import('@/lib/config')
const { buildJobDefinitions } = await import('@/inngest/app')
const { createJobsEngine } = await import('@/lib/jobs')
const { dispatchOutbox } = await import('@/lib/outbox/dispatch')

function ask<T>(child: ChildProcess, message: object, reply: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string } & Record<string, unknown>) => {
      if (m.type !== reply) return
      child.off('message', onMessage)
      resolve(m as T)
    }
    child.on('message', onMessage)
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)))
    child.send(message)
  })
}

const scratch = process.env.DATABASE_URL ? await createScratchDatabase('bench_webhooks') : null
const handle = scratch
  ? await openMigratedDatabase({ kind: 'postgres', url: scratch.url }, { maxConnections: 10 })
  : await openMigratedDatabase({ kind: 'pglite', dataDir: '' }, { memory: true })
const db = handle.db
const pki = createTestPki()
const receiverFile = path.join(path.dirname(fileURLToPath(import.meta.url)), 'webhooks-receiver.ts')
const receiver = fork(receiverFile, {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
})
const { port } = await ask<{ port: number }>(
  receiver,
  { type: 'listen', ...pki.issue(['hooks.test']) },
  'listening',
)

const orgs: string[] = []
const secrets: Record<string, string> = {}
for (let e = 0; e < ENDPOINTS; e++) {
  if (e % ENDPOINTS_PER_ORG === 0)
    orgs.push((await createOrganization(db, { name: `bench-${Date.now()}-${e}`, plan: 'paid' })).id)
  const urlPath = `/e${e}`
  const created = await createEndpoint(db, {
    organizationId: orgs.at(-1)!,
    name: `e${e}`,
    url: `https://hooks.test:${port}${urlPath}`,
  })
  secrets[urlPath] = created.secret
}
await ask(receiver, { type: 'secrets', secrets }, 'ready')

const rows: { eventId: string }[] = []
for (let i = 0; i < EVENTS_COUNT; i += 500) {
  const chunk = Array.from({ length: Math.min(500, EVENTS_COUNT - i) }, (_, j) => {
    const orgId = orgs[(i + j) % orgs.length]!
    return {
      organizationId: orgId,
      name: 'issue/created',
      // A whole issue.created payload: the fan-out refuses one the event catalogue does not match.
      payload: {
        issueId: crypto.randomUUID(),
        orgId,
        title: 'Bench',
        description: 'x'.repeat(1500),
        status: 'unresolved',
        priority: 'high',
        previewUrl: null,
        aiVerified: null,
        sourceType: 'session_analysis',
      },
      // Through the engine they are handed over below; otherwise nothing may send them.
      dispatchedAt: THROUGH_ENGINE ? null : new Date(),
    }
  })
  rows.push(...(await db.insert(outbox).values(chunk).returning({ eventId: outbox.eventId })))
}
// Each event goes to every endpoint of its organization (the last one may have only one).
const endpointsOfOrg = (o: number) => Math.min(ENDPOINTS_PER_ORG, ENDPOINTS - o * ENDPOINTS_PER_ORG)
let expected = 0
for (let i = 0; i < rows.length; i++) expected += endpointsOfOrg(i % orgs.length)

const deliver = createDeliverer({
  resolver: loopbackResolver({ 'hooks.test': ['127.0.0.1'] }),
  ca: pki.caCert,
  allowPrivate: true,
  // Every endpoint of the bench is on one host, so one pool serves them all.
  connectionsPerPool: CONCURRENCY,
})

let peakRss = process.memoryUsage().rss
const rssAtStart = peakRss
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss)
}, 100)

const cpu = () => {
  const own = process.cpuUsage()
  return {
    own: (own.user + own.system) / 1000,
    postgres: scratch ? postgresCpuMs() : null,
    machine: machineTicks(),
  }
}
// Figures are only valid on a machine nothing else loads; say so when something does.
const otherWork = await busyOtherWork()
if (otherWork.length > 0)
  console.error(
    `bench:webhooks: other work is using the machine; figures are not valid:\n${otherWork.join('\n')}`,
  )
const c0 = cpu()
const t0 = performance.now()
let attempted = 0
let c1 = c0
let t1 = t0
if (THROUGH_ENGINE) {
  installDatabase(handle)
  installDeliverer(deliver)
  const config = parseConfig({ ...process.env, WEBHOOK_RETRY_DELAYS_SECONDS: '0,0,0' })
  // The app's in-process engine with its defaults; only the webhook jobs are registered.
  const engine = createJobsEngine(
    { kind: 'in-process' },
    buildJobDefinitions(config).filter((d) => d.id.startsWith('webhook-fan-out-')),
  )
  await engine.start()
  for (let i = 0; i < rows.length; i += 100)
    await dispatchOutbox(db, engine, { eventIds: rows.slice(i, i + 100).map((r) => r.eventId) })
  for (;;) {
    const [done] = await db
      .select({ n: count() })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.status, 'succeeded'))
    if ((done?.n ?? 0) >= expected) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  attempted = expected
  await engine.stop()
  c1 = cpu()
  t1 = performance.now()
} else {
  let nextEvent = 0
  await Promise.all(
    Array.from({ length: FAN_OUT_PARALLEL }, async () => {
      while (nextEvent < rows.length) {
        const row = rows[nextEvent++]!
        await fanOutEvent(db, { eventId: row.eventId, name: 'issue/created' })
      }
    }),
  )
  c1 = cpu()
  t1 = performance.now()
  for (;;) {
    const n = await deliverDue(db, deliver, {
      delays: [0, 0, 0],
      batch: 200,
      concurrency: CONCURRENCY,
      perEndpoint: PER_ENDPOINT,
      maxRounds: 1000,
    })
    if (n === 0) break
    attempted += n
  }
}
const c2 = cpu()
const t2 = performance.now()
clearInterval(sampler)
const postgresResident = scratch ? postgresMemory() : null

const { report } = await ask<{ report: ReceiverReport }>(receiver, { type: 'report' }, 'report')
const [deliveryRows] = await db.select({ n: count() }).from(webhookDeliveries)
const [succeeded] = await db
  .select({ n: count() })
  .from(webhookDeliveries)
  .where(eq(webhookDeliveries.status, 'succeeded'))
const [attemptRows] = await db.select({ n: count() }).from(webhookDeliveryAttempts)
const deliveries = deliveryRows?.n ?? 0
const perDelivery = (ms: number | null) => (ms === null ? null : +(ms / deliveries).toFixed(3))
const pgMs = (a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>) =>
  a.postgres === null || b.postgres === null ? null : b.postgres - a.postgres
const result = {
  database: handle.kind,
  path: THROUGH_ENGINE ? 'in-process jobs engine (fan-out jobs, first attempts)' : 'fan-out, then deliverDue',
  events: rows.length,
  endpoints: ENDPOINTS,
  deliveries,
  concurrency: { overall: CONCURRENCY, perEndpoint: PER_ENDPOINT },
  // Through the engine, fan-out and first attempts interleave: only the end-to-end rate applies.
  fanOutSeconds: THROUGH_ENGINE ? null : +((t1 - t0) / 1000).toFixed(2),
  deliverySeconds: THROUGH_ENGINE ? null : +((t2 - t1) / 1000).toFixed(2),
  deliveriesPerSecond: THROUGH_ENGINE ? null : Math.round(deliveries / ((t2 - t1) / 1000)),
  endToEndPerSecond: Math.round(deliveries / ((t2 - t0) / 1000)),
  attempts: attempted,
  attemptRows: attemptRows?.n ?? 0,
  succeeded: succeeded?.n ?? 0,
  receiver: {
    received: report.received,
    distinct: report.distinct,
    duplicates: report.duplicates,
    badSignatures: report.badSignatures,
    tcpConnections: report.tcpConnections,
    cpuMsPerDelivery: perDelivery(report.cpuMs),
  },
  exactlyOnce: report.distinct === deliveries && report.received === deliveries && report.duplicates === 0,
  cpuMsPerDelivery: {
    delivering: { fanOut: perDelivery(c1.own - c0.own), delivery: perDelivery(c2.own - c1.own) },
    postgres: { fanOut: perDelivery(pgMs(c0, c1)), delivery: perDelivery(pgMs(c1, c2)) },
  },
  residentMemoryMB: {
    deliveringAtStart: Math.round(rssAtStart / 2 ** 20),
    deliveringPeak: Math.round(peakRss / 2 ** 20),
    receiver: Math.round(report.rssBytes / 2 ** 20),
    // Every Postgres process of the server (PSS: shared buffers counted once), after the run.
    postgresPss: postgresResident?.pssMiB ?? null,
  },
  otherWork: otherWork.length,
  machineBusyPercent: machinePercentBetween(c0.machine, c2.machine),
  note: 'Outbound work only: no request enters Next, so no floor route applies. Postgres CPU counts every Postgres process on the machine.',
}
console.log(JSON.stringify(result, null, 2))
receiver.disconnect()
await deliver.close()
pki.dispose()
await handle.close()
await scratch?.drop()
const ok =
  result.exactlyOnce &&
  report.badSignatures === 0 &&
  result.succeeded === deliveries &&
  result.attemptRows === deliveries &&
  deliveries === expected
if (!ok) {
  console.error('bench:webhooks: not every delivery arrived exactly once with a valid signature')
  process.exitCode = 1
}
