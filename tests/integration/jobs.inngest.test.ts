import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { InngestTestEngine } from '@inngest/test'
import type { Inngest } from 'inngest'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { buildJobDefinitions } from '@/inngest/app'
import { getConfig, parseConfig, setConfigForTests } from '@/lib/config'
import { defineJob, NonRetriableError } from '@/lib/jobs'
import { createInngestClient, createInngestEngine, toInngestFunction } from '@/lib/jobs/inngest'
import { currentRequestId, withLogContext } from '@/lib/log'

// Exposes the checkpoint that says whether Inngest would retry a failed run.
class RejectionProbe extends InngestTestEngine {
  rejected(options: InngestTestEngine.ExecuteOptions<'function-rejected'>) {
    return this.executeAndWaitFor('function-rejected', options).then((out) => out.result)
  }
}

const client = createInngestClient({ kind: 'inngest', dev: true })
const EVENT = 'test/order.placed'

const calls: string[] = []
const order = defineJob({
  id: 'test-order',
  name: 'Test order',
  trigger: { event: EVENT },
  retries: 4,
  payload: z.object({ orderId: z.string(), quantity: z.number().int() }),
  async handler({ event, step, attempt }) {
    calls.push(`handler@${attempt}`)
    const price = await step.run('price', async () => {
      calls.push('price')
      return event.data.quantity * 10
    })
    await step.sleep('cool-off', 2)
    const total = await step.run('total', async () => {
      calls.push('total')
      return price + 1
    })
    return { orderId: event.data.orderId, eventId: event.id, total }
  },
})

const failing = (error: Error, where: 'handler' | 'step') =>
  defineJob({
    id: `test-failing-${where}`,
    name: 'Test failing',
    trigger: { event: EVENT },
    retries: 3,
    payload: z.object({}),
    async handler({ step }) {
      if (where === 'handler') throw error
      await step.run('doomed', async () => {
        throw error
      })
    },
  })

// The test engine does not model waiting; a mocked sleep step lets the run carry on. A fresh
// list each time, because the test engine appends the steps it ran to the list it was given.
const awake = () => [{ id: 'cool-off', handler: () => null }]

const events = (
  data: Record<string, unknown>,
): [{ name: string; data: Record<string, unknown>; id: string }] => [{ name: EVENT, data, id: 'evt-1' }]

afterEach(() => {
  calls.length = 0
})

describe('Inngest engine', () => {
  it('wraps a definition with its id, retries and trigger', () => {
    const fn = toInngestFunction(order, client)
    expect(fn.id()).toContain('test-order')
    expect(fn.opts).toMatchObject({
      id: 'test-order',
      name: 'Test order',
      retries: 4,
      triggers: [{ event: EVENT }],
    })
    const scheduled = toInngestFunction(
      defineJob({
        ...order,
        id: 'test-cron',
        trigger: { cron: 'TZ=Europe/Paris 0 3 * * *', everySeconds: 60 },
      }),
      client,
    )
    expect(scheduled.opts.triggers).toEqual([{ cron: 'TZ=Europe/Paris 0 3 * * *' }])
  })

  it('refuses retries Inngest cannot express, already in defineJob', () => {
    expect(() => toInngestFunction({ ...order, retries: 21 }, client)).toThrow(/retries/)
    // the same check as the in-process engine's, so a definition is refused on both or neither
    for (const retries of [-1, 2.5, 21]) expect(() => defineJob({ ...order, retries })).toThrow(/retries/)
    for (const retries of [0, 20])
      expect(toInngestFunction(defineJob({ ...order, retries }), client).opts.retries).toBe(retries)
  })

  it("sends at once and ignores a caller's transaction handle", async () => {
    const send = vi.fn(async () => ({ ids: ['evt-1'] }))
    const engine = createInngestEngine({ send } as unknown as Inngest)
    const tx = {} as NonNullable<Parameters<typeof engine.send>[1]>['db']
    await engine.send({ name: EVENT, data: { orderId: 'o-9' }, id: 'evt-1' }, { db: tx })
    expect(send).toHaveBeenCalledWith([{ name: EVENT, data: { orderId: 'o-9' }, id: 'evt-1' }])
  })

  it("carries the sender's request id in the event and runs the handler under it, without it in the payload", async () => {
    const send = vi.fn(async () => ({ ids: ['evt-2'] }))
    const engine = createInngestEngine({ send } as unknown as Inngest)
    await withLogContext({ requestId: 'req-from-route' }, () =>
      engine.send([
        { name: EVENT, data: { orderId: 'o-8' }, id: 'evt-2' },
        { name: EVENT, data: { orderId: 'o-7' }, id: 'evt-3', requestId: 'req-from-outbox' },
      ]),
    )
    const sent = [
      { name: EVENT, data: { orderId: 'o-8', __requestId: 'req-from-route' }, id: 'evt-2' },
      { name: EVENT, data: { orderId: 'o-7', __requestId: 'req-from-outbox' }, id: 'evt-3' },
    ]
    expect(send).toHaveBeenCalledWith(sent)

    const seen: { requestId?: string; data: unknown }[] = []
    const probe = defineJob({
      id: 'test-probe',
      name: 'Test probe',
      trigger: { event: EVENT },
      retries: 0,
      payload: z.record(z.string(), z.unknown()),
      async handler({ event }) {
        seen.push({ requestId: currentRequestId(), data: event.data })
      },
    })
    const t = new InngestTestEngine({ function: toInngestFunction(probe, client) })
    const { error } = await t.execute({ events: [sent[1]!] })
    expect(error).toBeUndefined()
    expect(seen).toEqual([{ requestId: 'req-from-outbox', data: { orderId: 'o-7' } }])
  })

  it('runs the handler with the validated payload and passes step results through', async () => {
    const t = new InngestTestEngine({ function: toInngestFunction(order, client) })
    const { result, error, ctx } = await t.execute({
      events: events({ orderId: 'o-1', quantity: 3 }),
      steps: awake(),
    })
    expect(error).toBeUndefined()
    expect(result).toEqual({ orderId: 'o-1', eventId: 'evt-1', total: 31 })
    expect(calls).toEqual(expect.arrayContaining(['price', 'total']))
    expect(ctx.step.run).toHaveBeenCalledWith('price', expect.any(Function))
    // seconds in the definition, milliseconds for Inngest
    expect(ctx.step.sleep).toHaveBeenCalledWith('cool-off', 2000)
  })

  it('returns a step result as the step ran it', async () => {
    const t = new InngestTestEngine({ function: toInngestFunction(order, client) })
    const { result } = await t.executeStep('price', { events: events({ orderId: 'o-1', quantity: 4 }) })
    expect(result).toBe(40)
  })

  it('hands memoized step results to the handler instead of running the step', async () => {
    const t = new InngestTestEngine({ function: toInngestFunction(order, client) })
    const { result } = await t.execute({
      events: events({ orderId: 'o-2', quantity: 1 }),
      steps: [...awake(), { id: 'price', handler: () => 500 }],
    })
    expect(result).toMatchObject({ total: 501 })
    expect(calls).not.toContain('price')
    expect(calls).toContain('total')
  })

  it("maps the port's NonRetriableError to inngest's, so the run is not retried", async () => {
    const t = new RejectionProbe({
      function: toInngestFunction(failing(new NonRetriableError('gone'), 'handler'), client),
    })
    const rejected = await t.rejected({ events: events({}) })
    expect(rejected.retriable).toBe(false)
    expect(rejected.error).toMatchObject({ name: 'NonRetriableError', message: 'gone' })
  })

  it('leaves ordinary errors retriable', async () => {
    const t = new RejectionProbe({
      function: toInngestFunction(failing(new Error('flaky'), 'handler'), client),
    })
    const rejected = await t.rejected({ events: events({}) })
    expect(rejected.retriable).toBe(true)
    expect(rejected.error).toMatchObject({ message: 'flaky' })
  })

  it('fails a step for good when it throws NonRetriableError, and retries it otherwise', async () => {
    const fatal = new InngestTestEngine({
      function: toInngestFunction(failing(new NonRetriableError('gone'), 'step'), client),
    })
    const fatalStep = await fatal.executeStep('doomed', { events: events({}) })
    expect(fatalStep.step.op).toBe('StepFailed')
    expect(fatalStep.error).toMatchObject({ name: 'NonRetriableError', message: 'gone' })

    const flaky = new InngestTestEngine({
      function: toInngestFunction(failing(new Error('flaky'), 'step'), client),
    })
    const flakyStep = await flaky.executeStep('doomed', { events: events({}) })
    expect(flakyStep.step.op).toBe('StepError')
  })

  it('fails without retries when the payload does not match the schema', async () => {
    const t = new RejectionProbe({ function: toInngestFunction(order, client) })
    const rejected = await t.rejected({ events: events({ orderId: 'o-3', quantity: 'many' }) })
    expect(rejected.retriable).toBe(false)
    expect(rejected.error).toMatchObject({
      name: 'NonRetriableError',
      message: expect.stringContaining('Invalid payload'),
    })
    expect(calls).toEqual([])
  })
})

describe('/api/inngest route', () => {
  afterEach(() => {
    setConfigForTests(undefined)
  })

  it('answers 404 JSON when jobs run in-process', async () => {
    setConfigForTests(parseConfig({ ...process.env, INNGEST_DEV: undefined, INNGEST_SIGNING_KEY: undefined }))
    const { GET, PUT } = await import('@/app/api/inngest/route')
    const response = await GET(new Request('http://localhost:3000/api/inngest'))
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: 'inngest_not_enabled' })
    expect((await PUT(new Request('http://localhost:3000/api/inngest', { method: 'PUT' }))).status).toBe(404)
  })

  it('serves the introspection when Inngest is configured (dev server, no keys)', async () => {
    setConfigForTests(parseConfig({ ...process.env, INNGEST_DEV: '1' }))
    const { GET } = await import('@/app/api/inngest/route')
    const response = await GET(new Request('http://localhost:3000/api/inngest'))
    expect(response.status).toBe(200)
    // every job of the registry is served: the same list the in-process engine runs
    expect(await response.json()).toMatchObject({
      mode: 'dev',
      function_count: buildJobDefinitions(getConfig()).length,
      has_signing_key: false,
    })
  })
})

describe('module boundaries', () => {
  it('keeps lib/jobs free of Next (only app/ and lib/http/ import it)', async () => {
    const root = path.resolve(import.meta.dirname, '../../lib/jobs')
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.ts'))
    expect(files.length).toBeGreaterThan(5)
    for (const file of files) {
      const source = await readFile(path.join(root, file), 'utf8')
      expect(source, file).not.toMatch(/from '(next|next\/[^']*|inngest\/next)'/)
    }
  })
})
