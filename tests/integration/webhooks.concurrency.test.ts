import type { ServerResponse } from 'node:http'
import { eq, inArray } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '@/db/client'
import { outbox, webhookDeliveries, webhookDeliveryAttempts } from '@/db/schema'
import { createOrganization } from '@/lib/orgs/create-organization'
import { EVENTS } from '@/lib/outbox/events'
import { attemptRecord, claimDueDeliveries, loadClaimed } from '@/lib/webhooks/attempt'
import { createDeliverer, type DeliveryOutcome, type DeliveryRequest } from '@/lib/webhooks/deliver'
import { createEndpoint } from '@/lib/webhooks/endpoints'
import { fanOutEvent } from '@/lib/webhooks/fan-out'
import { type AttemptRecord, AttemptRecorder, recordAttempts } from '@/lib/webhooks/record-attempts'
import { deliverDue } from '@/lib/webhooks/sweep'
import { syntheticData } from '@/lib/webhooks/synthetic-data'
import type { Resolver } from '@/lib/webhooks/url-guard'
import { createTestDatabase } from '../helpers/db'
import {
  createTestPki,
  loopbackResolver,
  startReceiver,
  type TestPki,
  type TestReceiver,
} from '../helpers/webhooks'

// Concurrent delivery, keep-alive pools and batched bookkeeping, on the real database and real
// HTTPS receivers on loopback. 127.0.0.1 and 127.0.0.3 play public addresses (allowCidrs),
// 127.0.0.2 an internal one, all on the same port so only the resolved address differs.
let handle: DatabaseHandle
let pki: TestPki
let receiver: TestReceiver
let moved: TestReceiver
let internal: TestReceiver
const delays = [0, 0, 0]
const allowCidrs = ['127.0.0.1/32', '127.0.0.3/32']

beforeAll(async () => {
  handle = await createTestDatabase()
  pki = createTestPki()
  const tls = pki.issue(['hooks.test'])
  receiver = await startReceiver(tls)
  moved = await startReceiver(tls, undefined, '127.0.0.3', receiver.port)
  internal = await startReceiver(tls, undefined, '127.0.0.2', receiver.port)
})
afterEach(() => receiver.behave((res) => res.writeHead(200).end()))
afterAll(async () => {
  await Promise.all([receiver, moved, internal].map((r) => r?.close()))
  pki?.dispose()
  await handle?.close()
})

const deliverer = (options: { connectionsPerPool?: number } = {}) =>
  createDeliverer({
    resolver: loopbackResolver({ 'hooks.test': ['127.0.0.1'] }),
    ca: pki.caCert,
    allowCidrs,
    ...options,
  })

/** A paid organization with one endpoint per path (at most 3: the active cap). */
async function endpointsAt(paths: string[]) {
  const orgId = (await createOrganization(handle.db, { name: 'Acme', plan: 'paid' })).id
  for (const p of paths)
    await createEndpoint(handle.db, {
      organizationId: orgId,
      name: p,
      url: `https://hooks.test:${receiver.port}${p}`,
    })
  return orgId
}

/** `n` issue.created events, fanned out one after the other (oldest first); their event ids in order. */
async function fannedOutEvents(orgId: string, n: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const [row] = await handle.db
      .insert(outbox)
      .values({
        organizationId: orgId,
        name: EVENTS.issueCreated,
        // A real issue.created payload (the fan-out checks it), told apart by a field of its own.
        payload: { ...syntheticData('issue.created', orgId), n: i },
        dispatchedAt: new Date(),
      })
      .returning({ eventId: outbox.eventId })
    await fanOutEvent(handle.db, { eventId: row!.eventId, name: EVENTS.issueCreated })
    ids.push(row!.eventId)
  }
  return ids
}

const receivedSince = (r: TestReceiver, start: number) => r.received.slice(start)

describe('concurrent delivery', () => {
  it("starts each endpoint's deliveries oldest first within its bound, different endpoints side by side", async () => {
    const orgId = await endpointsAt(['/a', '/b', '/c'])
    const events = await fannedOutEvents(orgId, 6)
    const start = receiver.received.length
    // Hold every response until three are open at once (a fallback timer only avoids a hang
    // if they never are), and record how many were open per endpoint and overall.
    const held: { res: ServerResponse; path: string }[] = []
    const open = new Map<string, number>()
    const maxOpen = new Map<string, number>()
    let maxOverall = 0
    let fallback: NodeJS.Timeout | undefined
    const releaseAll = () => {
      clearTimeout(fallback)
      for (const h of held.splice(0)) {
        open.set(h.path, (open.get(h.path) ?? 1) - 1)
        h.res.writeHead(200).end()
      }
    }
    receiver.behave((res, index) => {
      const path = receiver.received[index]!.url
      held.push({ res, path })
      open.set(path, (open.get(path) ?? 0) + 1)
      maxOpen.set(path, Math.max(maxOpen.get(path) ?? 0, open.get(path)!))
      maxOverall = Math.max(maxOverall, held.length)
      if (held.length >= 3) releaseAll()
      else fallback ??= setTimeout(releaseAll, 5000)
    })
    const deliver = deliverer()
    expect(await deliverDue(handle.db, deliver, { delays, concurrency: 8, perEndpoint: 1 })).toBe(18)
    await deliver.close()
    clearTimeout(fallback)
    const got = receivedSince(receiver, start)
    expect(got).toHaveLength(18)
    for (const path of ['/a', '/b', '/c']) {
      expect(
        got.filter((r) => r.url === path).map((r) => r.headers['service-webhook-id']),
        path,
      ).toEqual(events)
      expect(maxOpen.get(path), path).toBe(1)
    }
    expect(maxOverall).toBe(3)
  })

  it('reuses keep-alive connections: the receiver sees fewer connections than deliveries', async () => {
    const orgId = await endpointsAt(['/reuse'])
    await fannedOutEvents(orgId, 12)
    const start = receiver.received.length
    const connections = receiver.connections()
    const deliver = deliverer({ connectionsPerPool: 3 })
    expect(await deliverDue(handle.db, deliver, { delays, concurrency: 3, perEndpoint: 3 })).toBe(12)
    expect(receivedSince(receiver, start)).toHaveLength(12)
    expect(receiver.connections() - connections).toBeLessThanOrEqual(3)
    expect(deliver.pools.stats()).toEqual({ open: 1, opened: 1 })
    await deliver.close()
  })
})

describe('keep-alive pools and DNS rebinding', () => {
  const request = (): DeliveryRequest => ({
    url: `https://hooks.test:${receiver.port}/pinned`,
    secret: 'whsec_dGVzdC1zZWNyZXQtZm9yLXdlYmhvb2stZGVsaXZlcnk=',
    body: '{"event":"issue.created"}',
    eventId: '3b0f0c8e-6a43-4d6b-9d1b-2f4f2b7f5a10',
    eventType: 'issue.created',
  })

  it('never sends through a pooled connection to an address the latest answer did not vet', async () => {
    let answer = '127.0.0.1'
    let lookups = 0
    const resolver: Resolver = async () => {
      lookups++
      return [{ address: answer, family: 4 }]
    }
    const deliver = createDeliverer({ resolver, ca: pki.caCert, allowCidrs })
    const before = {
      good: receiver.received.length,
      connections: receiver.connections(),
      moved: moved.received.length,
      internal: internal.received.length,
    }
    for (let i = 0; i < 4; i++) expect(await deliver(request())).toMatchObject({ ok: true })
    // Fewer connections than deliveries: they are kept alive, and open while the name moves.
    expect(receiver.received.length - before.good).toBe(4)
    expect(receiver.connections() - before.connections).toBeLessThan(4)

    // Rebinding to an internal address: refused before any pool is chosen.
    answer = '127.0.0.2'
    expect(await deliver(request())).toMatchObject({ ok: false, label: 'url_unsafe', sent: false })
    expect(internal.received.length).toBe(before.internal)
    expect(receiver.received.length - before.good).toBe(4)

    // Moving to another vetted address: a pool of its own, not the kept-alive socket.
    answer = '127.0.0.3'
    expect(await deliver(request())).toMatchObject({ ok: true })
    expect(moved.received.length - before.moved).toBe(1)
    expect(receiver.received.length - before.good).toBe(4)

    expect(lookups).toBe(6)
    expect(deliver.pools.stats().opened).toBe(2)
    await deliver.close()
  })

  it('keeps a bounded number of pools and closes the ones it evicts', async () => {
    let answer = '127.0.0.1'
    const deliver = createDeliverer({
      resolver: async () => [{ address: answer, family: 4 }],
      ca: pki.caCert,
      allowCidrs,
      maxPools: 1,
    })
    const connections = receiver.connections()
    expect(await deliver(request())).toMatchObject({ ok: true })
    answer = '127.0.0.3'
    expect(await deliver(request())).toMatchObject({ ok: true })
    answer = '127.0.0.1'
    expect(await deliver(request())).toMatchObject({ ok: true })
    // The first pool was closed when the second evicted it, so its address needed a new connection.
    expect(receiver.connections() - connections).toBe(2)
    expect(deliver.pools.stats()).toEqual({ open: 1, opened: 3 })
    await deliver.close()
    // Once closed, nothing opens a pool again: the attempt fails instead of leaking sockets.
    expect(await deliver(request())).toMatchObject({ ok: false })
    expect(deliver.pools.stats()).toEqual({ open: 0, opened: 3 })
  })
})

describe('batched attempt bookkeeping', () => {
  const ok = (): DeliveryOutcome => ({
    ok: true,
    status: 200,
    label: null,
    startedAt: new Date(),
    durationMs: 5,
    sent: true,
  })

  /** `n` claimed deliveries (as a sweep holds them between sending and recording). */
  async function claimedDeliveries(n: number) {
    const orgId = await endpointsAt(['/book'])
    await fannedOutEvents(orgId, n)
    const ids = (
      await handle.db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.organizationId, orgId))
    ).map((r) => r.id)
    const { due } = await loadClaimed(handle.db, await claimDueDeliveries(handle.db, { limit: n, ids }))
    expect(due).toHaveLength(n)
    return { ids, due }
  }

  const stateOf = async (ids: string[]) => ({
    deliveries: await handle.db
      .select({ status: webhookDeliveries.status, attempts: webhookDeliveries.attempts })
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.id, ids)),
    attemptRows: await handle.db
      .select({ deliveryId: webhookDeliveryAttempts.deliveryId })
      .from(webhookDeliveryAttempts)
      .where(inArray(webhookDeliveryAttempts.deliveryId, ids)),
  })

  it('writes each outcome alone when a batch statement fails: recorded once, never sent again', async () => {
    const { ids, due } = await claimedDeliveries(5)
    let failures = 0
    const recorder = new AttemptRecorder(handle.db, async (db, records) => {
      // The batch statement fails (a dropped connection, say); single writes go through.
      if (records.length > 1) {
        failures++
        throw new Error('connection reset')
      }
      await recordAttempts(db, records)
    })
    await Promise.all(due.map((row) => recorder.record(attemptRecord(row, ok(), delays))))
    expect(failures).toBe(1)
    const { deliveries, attemptRows } = await stateOf(ids)
    expect(deliveries).toHaveLength(5)
    for (const d of deliveries) expect(d).toEqual({ status: 'succeeded', attempts: 1 })
    expect(attemptRows).toHaveLength(5)
    expect(new Set(attemptRows.map((r) => r.deliveryId)).size).toBe(5)
    // Nothing is due any more: a sweep sends none of them again.
    const start = receiver.received.length
    const deliver = deliverer()
    await deliverDue(handle.db, deliver, { delays, ids })
    await deliver.close()
    expect(receiver.received.length).toBe(start)
  })

  it('keeps the rest of a batch when the database refuses one row of it', async () => {
    const { ids, due } = await claimedDeliveries(4)
    const records: AttemptRecord[] = due.map((row) => attemptRecord(row, ok(), delays))
    // A status the table's check constraint refuses: the whole batch statement fails.
    records[2] = { ...records[2]!, status: 'refused' as AttemptRecord['status'] }
    const recorder = new AttemptRecorder(handle.db)
    const settled = await Promise.allSettled(records.map((r) => recorder.record(r)))
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
    const { deliveries, attemptRows } = await stateOf(ids)
    expect(deliveries.filter((d) => d.status === 'succeeded')).toHaveLength(3)
    // The refused one is still pending under its claim, with nothing logged: after the
    // lease it is attempted again, with the same id and body.
    expect(deliveries.filter((d) => d.status === 'pending')).toEqual([{ status: 'pending', attempts: 0 }])
    expect(attemptRows).toHaveLength(3)
  })
})
