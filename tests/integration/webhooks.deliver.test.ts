import { createServer } from 'node:net'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDeliverer, type DeliveryRequest } from '@/lib/webhooks/deliver'
import { envelopeBody } from '@/lib/webhooks/events'
import { verifyWebhookSignature } from '@/lib/webhooks/verify'
import {
  createTestPki,
  loopbackResolver,
  startReceiver,
  type TestPki,
  type TestReceiver,
} from '../helpers/webhooks'

// Real HTTPS receivers on loopback with a CA made here. "hooks.test" resolves to 127.0.0.1,
// which plays a public address (allowCidrs); 127.0.0.2 plays an internal one.
let pki: TestPki
let good: TestReceiver
let wrongName: TestReceiver
let internal: TestReceiver
const secret = 'whsec_dGVzdC1zZWNyZXQtZm9yLXdlYmhvb2stZGVsaXZlcnk='
const resolver = loopbackResolver({
  'hooks.test': ['127.0.0.1'],
  'wrong.test': ['127.0.0.1'],
  'rebind.test': ['127.0.0.1', '127.0.0.2'],
  'internal.test': ['127.0.0.2'],
})

beforeAll(async () => {
  pki = createTestPki()
  const tls = pki.issue(['hooks.test', 'internal.test', 'rebind.test'])
  good = await startReceiver(tls)
  wrongName = await startReceiver(pki.issue(['someone-else.test']))
  internal = await startReceiver(tls, undefined, '127.0.0.2')
})
afterAll(async () => {
  await Promise.all([good, wrongName, internal].map((r) => r?.close()))
  pki?.dispose()
})

const deliverer = (timeoutMs?: number) =>
  createDeliverer({ resolver, ca: pki.caCert, allowCidrs: ['127.0.0.1/32'], timeoutMs })

const body = envelopeBody({
  event: 'issue.created',
  id: '3b0f0c8e-6a43-4d6b-9d1b-2f4f2b7f5a10',
  occurredAt: new Date('2025-01-02T03:04:05.000Z'),
  data: {
    issueId: '9a7d0c1e-0000-4000-8000-000000000001',
    orgId: '9a7d0c1e-0000-4000-8000-000000000002',
    title: 'TypeError',
    description: 'x'.repeat(1200),
    status: 'unresolved',
    priority: 'high',
    previewUrl: null,
    aiVerified: null,
    sourceType: 'session_analysis',
  },
})
const request = (url: string, extra: Partial<DeliveryRequest> = {}): DeliveryRequest => ({
  url,
  secret,
  body,
  eventId: '3b0f0c8e-6a43-4d6b-9d1b-2f4f2b7f5a10',
  eventType: 'issue.created',
  ...extra,
})

describe('deliver()', () => {
  it('sends the spec headers, the exact body and a signature Stripe also accepts', async () => {
    const before = good.received.length
    const outcome = await deliverer()(request(`https://hooks.test:${good.port}/hook?x=1`))
    expect(outcome).toMatchObject({ ok: true, status: 200, label: null, sent: true })
    const got = good.received[before]!
    expect(got.method).toBe('POST')
    expect(got.url).toBe('/hook?x=1')
    expect(got.body).toBe(body)
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['user-agent']).toMatch(/^SessionReplayIssues-Webhooks\/\d+\.\d+\.\d+$/)
    expect(got.headers['service-webhook-id']).toBe('3b0f0c8e-6a43-4d6b-9d1b-2f4f2b7f5a10')
    expect(got.headers['service-event']).toBe('issue.created')
    expect(got.headers['service-webhook-test']).toBeUndefined()
    expect(got.headers.host).toBe(`hooks.test:${good.port}`)
    const signature = String(got.headers['service-signature'])
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect(verifyWebhookSignature(got.body, signature, secret).timestamp).toBeGreaterThan(0)
    const stripe = new Stripe('sk_test_unused')
    const event = stripe.webhooks.constructEvent(got.body, signature, secret) as unknown as {
      event: string
      data: { description: string }
    }
    expect(event.event).toBe('issue.created')
    expect(event.data.description).toBe(`${'x'.repeat(1000)}...`)
  })

  it('marks test sends with Service-Webhook-Test: 1', async () => {
    const before = good.received.length
    await deliverer()(request(`https://hooks.test:${good.port}/`, { test: true }))
    expect(good.received[before]!.headers['service-webhook-test']).toBe('1')
  })

  it('labels a non-2xx status and does not follow redirects', async () => {
    good.behave((res) => res.writeHead(503).end('down'))
    expect(await deliverer()(request(`https://hooks.test:${good.port}/`))).toMatchObject({
      ok: false,
      status: 503,
      label: 'bad_status:503',
    })
    const before = good.received.length
    good.behave((res, i) =>
      i === before
        ? res.writeHead(302, { location: `https://hooks.test:${good.port}/moved` }).end()
        : res.end(),
    )
    const redirected = await deliverer()(request(`https://hooks.test:${good.port}/`))
    expect(redirected).toMatchObject({ ok: false, status: 302, label: 'bad_status:302' })
    await new Promise((r) => setTimeout(r, 100))
    expect(good.received.length).toBe(before + 1)
    good.behave((res) => res.writeHead(200).end())
  })

  it('labels a stalled receiver timeout', async () => {
    good.behave(() => {})
    const outcome = await deliverer(300)(request(`https://hooks.test:${good.port}/`))
    expect(outcome).toMatchObject({ ok: false, status: null, label: 'timeout' })
    expect(outcome.durationMs).toBeLessThan(3000)
    good.behave((res) => res.writeHead(200).end())
  })

  it('labels a certificate for another host tls_error', async () => {
    const outcome = await deliverer()(request(`https://wrong.test:${wrongName.port}/`))
    expect(outcome).toMatchObject({ ok: false, label: 'tls_error' })
    expect(wrongName.received).toHaveLength(0)
  })

  it('labels an untrusted CA tls_error', async () => {
    const noCa = createDeliverer({ resolver, allowCidrs: ['127.0.0.1/32'] })
    expect(await noCa(request(`https://hooks.test:${good.port}/`))).toMatchObject({ label: 'tls_error' })
  })

  it('labels a closed port network_error', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    expect(await deliverer()(request(`https://hooks.test:${port}/`))).toMatchObject({
      label: 'network_error',
    })
  })

  it('refuses unsafe targets with url_unsafe and sends nothing', async () => {
    const before = internal.received.length
    for (const url of [
      `https://internal.test:${internal.port}/`,
      `https://rebind.test:${internal.port}/`,
      `https://127.0.0.2:${internal.port}/`,
      `https://[::ffff:127.0.0.2]:${internal.port}/`,
      `http://hooks.test:${good.port}/`,
      `https://user:pw@hooks.test:${good.port}/`,
      'https://hooks.test:6379/',
    ]) {
      const outcome = await deliverer()(request(url))
      expect(outcome, url).toMatchObject({ ok: false, status: null, label: 'url_unsafe', sent: false })
    }
    expect(internal.received.length).toBe(before)
  })

  it('resolves once per attempt and connects only to the vetted address (DNS rebinding)', async () => {
    let calls = 0
    // First answer public (127.0.0.1 here), every later one internal: a rebinding resolver.
    const rebinding = createDeliverer({
      resolver: async () => [{ address: calls++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }],
      ca: pki.caCert,
      allowCidrs: ['127.0.0.1/32'],
    })
    const before = { good: good.received.length, internal: internal.received.length }
    expect(await rebinding(request(`https://hooks.test:${good.port}/`))).toMatchObject({ ok: true })
    expect(calls).toBe(1)
    expect(good.received.length).toBe(before.good + 1)
    expect(internal.received.length).toBe(before.internal)
    expect(await rebinding(request(`https://hooks.test:${good.port}/`))).toMatchObject({
      label: 'url_unsafe',
    })
    expect(good.received.length).toBe(before.good + 1)
  })

  it('reaches private targets when WEBHOOK_ALLOW_PRIVATE_TARGETS opens them', async () => {
    const open = createDeliverer({ resolver, ca: pki.caCert, allowPrivate: true })
    expect(await open(request(`https://internal.test:${internal.port}/`))).toMatchObject({ ok: true })
  })
})
