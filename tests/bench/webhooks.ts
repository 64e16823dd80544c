// npm run bench:webhooks: fans out 10,000 deliveries (5,000 issue.created events x 2
// endpoints) from outbox rows to an HTTPS receiver on loopback, then reports deliveries per
// second and the share the receiver saw exactly once. Bounded: loopback only, 10k rows.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

process.env.DATA_DIR ??= mkdtempSync(path.join(tmpdir(), 'bench-webhooks-'))
process.env.AUTH_SECRET ??= 'bench-secret-bench-secret-bench-secret-0123456789'
process.env.LOG_LEVEL ??= 'warn'

const EVENTS_COUNT = Number(process.env.BENCH_EVENTS ?? 5000)
const { openMigratedDatabase } = await import('@/db/migrate')
const { outbox, webhookDeliveries } = await import('@/db/schema')
const { createOrganization } = await import('@/lib/orgs/create-organization')
const { createEndpoint } = await import('@/lib/webhooks/endpoints')
const { createDeliverer } = await import('@/lib/webhooks/deliver')
const { fanOutEvent } = await import('@/lib/webhooks/fan-out')
const { deliverDue } = await import('@/lib/webhooks/sweep')
const { createTestPki, loopbackResolver, startReceiver } = await import('../helpers/webhooks')
const { createScratchDatabase } = await import('./harness/database')
const { count, eq } = await import('drizzle-orm')

// With DATABASE_URL, a scratch database beside it (dropped at the end), not the one it names.
const scratch = process.env.DATABASE_URL ? await createScratchDatabase('bench_webhooks') : null
const handle = scratch
  ? await openMigratedDatabase({ kind: 'postgres', url: scratch.url }, { maxConnections: 10 })
  : await openMigratedDatabase({ kind: 'pglite', dataDir: '' }, { memory: true })
const db = handle.db
const pki = createTestPki()
const seen = new Map<string, number>()
const receiver = await startReceiver(pki.issue(['hooks.test']), (res) => res.writeHead(204).end())
const tally = setInterval(() => {
  for (const r of receiver.received.splice(0)) {
    const key = `${r.url} ${r.headers['service-webhook-id']}`
    seen.set(key, (seen.get(key) ?? 0) + 1)
  }
}, 50)

const org = await createOrganization(db, { name: `bench-${Date.now()}`, plan: 'paid' })
for (const name of ['e1', 'e2'])
  await createEndpoint(db, {
    organizationId: org.id,
    name,
    url: `https://hooks.test:${receiver.port}/${name}`,
  })

const data = { issueId: crypto.randomUUID(), orgId: org.id, title: 'Bench', description: 'x'.repeat(1500) }
const rows: { eventId: string }[] = []
for (let i = 0; i < EVENTS_COUNT; i += 500) {
  const chunk = Array.from({ length: Math.min(500, EVENTS_COUNT - i) }, () => ({
    organizationId: org.id,
    name: 'issue/created',
    payload: data,
    dispatchedAt: new Date(),
  }))
  rows.push(...(await db.insert(outbox).values(chunk).returning({ eventId: outbox.eventId })))
}

const t0 = performance.now()
for (const row of rows) await fanOutEvent(db, { eventId: row.eventId, name: 'issue/created' })
const t1 = performance.now()
const deliver = createDeliverer({
  resolver: loopbackResolver({ 'hooks.test': ['127.0.0.1'] }),
  ca: pki.caCert,
  allowPrivate: true,
})
let attempted = 0
for (;;) {
  const n = await deliverDue(db, deliver, { delays: [0, 0, 0], batch: 500, concurrency: 64, maxRounds: 1 })
  if (n === 0) break
  attempted += n
}
const t2 = performance.now()
await new Promise((r) => setTimeout(r, 200))
clearInterval(tally)
for (const r of receiver.received.splice(0)) {
  const key = `${r.url} ${r.headers['service-webhook-id']}`
  seen.set(key, (seen.get(key) ?? 0) + 1)
}

const [succeeded] = await db
  .select({ n: count() })
  .from(webhookDeliveries)
  .where(eq(webhookDeliveries.status, 'succeeded'))
const total = EVENTS_COUNT * 2
const once = [...seen.values()].filter((n) => n === 1).length
console.log(
  JSON.stringify(
    {
      database: handle.kind,
      deliveries: total,
      fanOutSeconds: +((t1 - t0) / 1000).toFixed(2),
      deliverySeconds: +((t2 - t1) / 1000).toFixed(2),
      attempts: attempted,
      deliveriesPerSecond: Math.round(total / ((t2 - t1) / 1000)),
      endToEndPerSecond: Math.round(total / ((t2 - t0) / 1000)),
      succeeded: succeeded?.n ?? 0,
      exactlyOnceShare: once / total,
      duplicates: [...seen.values()].filter((n) => n > 1).length,
    },
    null,
    2,
  ),
)
await receiver.close()
pki.dispose()
await handle.close()
await scratch?.drop()
