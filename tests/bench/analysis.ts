/**
 * Analyser throughput and memory on synthetic sessions of 10,000 and 1,000,000 events, generated
 * lazily and streamed through one analyser on one core — the whole session is never held.
 * Goal: ≥ 200,000 events/s and a retained heap that does not grow with session length.
 *
 *   npm run bench:analysis
 */

import { cpus, loadavg } from 'node:os'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createAnalyzer } from '@/lib/analysis'
import type { RrwebEvent } from '@/lib/analysis/types'

setFlagsFromString('--expose-gc')
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void

/** Mulberry32: the same session every run, so runs compare. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ORIGIN = 'https://shop.example.com'
const PAGES = ['/', '/products', '/products/42', '/cart', '/checkout', '/account/orders/9812']
const CSS = '.card-cta{cursor:pointer}.tile:hover{cursor:pointer;color:red}body{margin:0}'

interface Page {
  buttons: number[]
  inputs: number[]
  container: number
  nextId: number
}

function text(id: number, value: string) {
  return { type: 3, textContent: value, id }
}

/** A document of about 400 nodes: header, a grid of product cards with buttons, a form. */
function snapshot(): { node: unknown; page: Page } {
  let id = 1
  const buttons: number[] = []
  const inputs: number[] = []
  const cards = []
  for (let i = 0; i < 60; i++) {
    const button = id++
    buttons.push(button)
    cards.push({
      type: 2,
      tagName: 'article',
      attributes: { class: 'card' },
      id: id++,
      childNodes: [
        { type: 2, tagName: 'h3', attributes: {}, id: id++, childNodes: [text(id++, `Product ${i}`)] },
        {
          type: 2,
          tagName: 'p',
          attributes: { class: 'price' },
          id: id++,
          childNodes: [text(id++, `$${i * 3 + 9}`)],
        },
        {
          type: 2,
          tagName: 'button',
          attributes: { class: 'btn add', type: 'button', 'data-testid': `add-${i}` },
          id: button,
          childNodes: [text(id++, 'Add to cart')],
        },
      ],
    })
  }
  const fields = []
  for (const name of ['email', 'name', 'address', 'zip']) {
    const input = id++
    inputs.push(input)
    fields.push({
      type: 2,
      tagName: 'input',
      attributes: { id: name, name, type: 'text', 'aria-label': name },
      id: input,
      childNodes: [],
    })
  }
  const container = id++
  const node = {
    type: 0,
    id: id++,
    childNodes: [
      {
        type: 2,
        tagName: 'html',
        attributes: {},
        id: id++,
        childNodes: [
          {
            type: 2,
            tagName: 'head',
            attributes: {},
            id: id++,
            childNodes: [
              { type: 2, tagName: 'style', attributes: { _cssText: CSS }, id: id++, childNodes: [] },
            ],
          },
          {
            type: 2,
            tagName: 'body',
            attributes: {},
            id: id++,
            childNodes: [
              { type: 2, tagName: 'main', attributes: { class: 'grid' }, id: container, childNodes: cards },
              { type: 2, tagName: 'form', attributes: {}, id: id++, childNodes: fields },
            ],
          },
        ],
      },
    ],
  }
  return { node, page: { buttons, inputs, container, nextId: id + 1000 } }
}

/** Yields `count` events shaped like a long shopping session, one at a time. */
function* session(count: number, seed = 1): Generator<RrwebEvent> {
  const rand = random(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!
  let t = 1_800_000_000_000
  let emitted = 0
  let page: Page = snapshot().page
  let path = PAGES[0]!
  const live: number[] = []
  const emit = (type: number, data: unknown): RrwebEvent => {
    emitted++
    t += 1 + Math.floor(rand() * 40)
    return { type, timestamp: t, data }
  }
  const load = function* () {
    yield emit(0, {})
    yield emit(4, { href: `${ORIGIN}${path}`, width: 1280, height: 800 })
    const snap = snapshot()
    page = snap.page
    live.length = 0
    yield emit(2, { node: snap.node, initialOffset: { top: 0, left: 0 } })
    yield emit(1, {})
  }
  yield* load()
  while (emitted < count) {
    const roll = rand()
    if (emitted % 100_000 < 1 && emitted > 10) {
      path = pick(PAGES)
      yield* load()
    } else if (emitted % 5000 < 1) {
      // Periodic checkout: Meta and FullSnapshot on the same URL.
      yield emit(4, { href: `${ORIGIN}${path}`, width: 1280, height: 800 })
      const snap = snapshot()
      page = snap.page
      live.length = 0
      yield emit(2, { node: snap.node, initialOffset: { top: 0, left: 0 } })
    } else if (roll < 0.42) {
      const positions = Array.from({ length: 8 }, (_, i) => ({
        x: Math.floor(rand() * 1280),
        y: Math.floor(rand() * 800),
        id: 5,
        timeOffset: -i * 50,
      }))
      yield emit(3, { source: 1, positions })
    } else if (roll < 0.62) {
      // A card appears, or an old one goes: the DOM stays about the same size.
      if (live.length > 30 || (live.length > 0 && rand() < 0.5)) {
        yield emit(3, {
          source: 0,
          adds: [],
          removes: [{ parentId: page.container, id: live.shift()! }],
          texts: [],
          attributes: [],
        })
      } else {
        const card = page.nextId++
        const label = page.nextId++
        live.push(card)
        yield emit(3, {
          source: 0,
          adds: [
            {
              parentId: page.container,
              nextId: null,
              node: { type: 2, tagName: 'div', attributes: { class: 'tile' }, childNodes: [], id: card },
            },
            { parentId: card, nextId: null, node: text(label, `Recommended ${card}`) },
          ],
          removes: [],
          texts: [],
          attributes: [
            { id: pick(page.buttons), attributes: { class: rand() < 0.5 ? 'btn add' : 'btn add busy' } },
          ],
        })
      }
    } else if (roll < 0.7) {
      yield emit(3, { source: 3, id: 1, x: 0, y: Math.floor(rand() * 4000) })
    } else if (roll < 0.76) {
      // Now and then a user rages at one of the two broken buttons of the page.
      const burst = rand() < 0.01 ? 5 : 1
      const button =
        burst > 1
          ? page.buttons[Math.floor(rand() * 2)]!
          : rand() < 0.8
            ? pick(page.buttons)
            : (live[0] ?? pick(page.buttons))
      for (let i = 0; i < burst; i++) {
        yield emit(3, { source: 2, type: 1, id: button, x: 100, y: 200 })
        yield emit(3, { source: 2, type: 0, id: button, x: 100, y: 200 })
        yield emit(3, { source: 2, type: 2, id: button, x: 100, y: 200, pointerType: 0 })
      }
    } else if (roll < 0.84) {
      yield emit(3, {
        source: 5,
        id: pick(page.inputs),
        text: '*'.repeat(1 + Math.floor(rand() * 20)),
        isChecked: false,
      })
    } else if (roll < 0.9) {
      const level = rand() < 0.15 ? 'error' : pick(['log', 'info', 'warn'])
      const uncaught = level === 'error' && rand() < 0.5
      const message = uncaught
        ? `"Uncaught TypeError: Cannot read properties of undefined (reading 'item${Math.floor(rand() * 5)}')"`
        : `"[cart] synced ${Math.floor(rand() * 1000)} items for order ${Math.floor(rand() * 1e6)}"`
      yield emit(6, {
        plugin: 'rrweb/console@1',
        payload: {
          level,
          trace: [`renderCart (${ORIGIN}/assets/app.3f9a2c1d.js:88:14)`],
          payload: [message],
        },
      })
    } else if (roll < 0.97) {
      const failed = rand() < 0.05
      const status = failed ? pick([500, 503, 0, 429]) : pick([200, 200, 204, 304, 404])
      const url = `${ORIGIN}/api/${pick(['cart', 'products', 'orders', 'profile'])}/${Math.floor(rand() * 1000)}?v=${Math.floor(rand() * 9)}`
      yield emit(6, {
        plugin: 'rrweb/network@1',
        payload: {
          requests: [
            {
              name: url,
              url,
              method: pick(['GET', 'GET', 'POST']),
              initiatorType: 'fetch',
              status,
              statusText: '',
              timestamp: t - 120,
              startTime: 0,
              endTime: 120,
              duration: 120,
            },
          ],
        },
      })
    } else if (roll < 0.975) {
      path = pick(PAGES)
      yield emit(5, { tag: 'navigation', payload: { href: `${ORIGIN}${path}`, from: '', kind: 'push' } })
    } else {
      yield emit(3, { source: 4, width: 1280, height: 800 })
    }
  }
}

interface Run {
  events: number
  /** Wall-clock seconds inside analyser.push/finish only. */
  analyserSeconds: number
  /**
   * CPU seconds of this process inside push/finish: on a busy machine wall time also counts
   * the time other processes held the core, CPU time does not.
   */
  analyserCpuSeconds: number
  /** Seconds including generating the events. */
  totalSeconds: number
  peakHeapMb: number
  retainedHeapMb: number[]
  findings: Record<string, number>
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10
const BATCH = 1000

/** Events are generated a batch at a time, as ingest hands them over. */
function nextBatch(source: Iterator<RrwebEvent>, batch: RrwebEvent[]): void {
  batch.length = 0
  while (batch.length < BATCH) {
    const next = source.next()
    if (next.done) return
    batch.push(next.value)
  }
}

/**
 * Only the pushes are timed: the generator is slower than the analyser and would hide it.
 * `retainedEvery` > 0 measures memory: a forced GC first and at each step. Timed runs (0) skip
 * it, because a forced GC also shrinks the young generation and the next seconds then pay for
 * extra scavenges that a running service does not.
 */
function run(count: number, retainedEvery: number): Run {
  if (retainedEvery > 0) gc()
  const baseline = process.memoryUsage().heapUsed
  let peak = 0
  const retained: number[] = []
  const analyzer = createAnalyzer({ ignoreRequestUrls: [`${ORIGIN}/ingest`] })
  const source = session(count)
  const batch: RrwebEvent[] = []
  let analyserMs = 0
  let analyserCpu = 0
  let n = 0
  const start = performance.now()
  for (;;) {
    nextBatch(source, batch)
    if (batch.length === 0) break
    const pushStart = performance.now()
    const cpuStart = process.cpuUsage()
    for (const event of batch) analyzer.push(event)
    const cpu = process.cpuUsage(cpuStart)
    analyserMs += performance.now() - pushStart
    analyserCpu += cpu.user + cpu.system
    const before = n
    n += batch.length
    peak = Math.max(peak, process.memoryUsage().heapUsed - baseline)
    // Forced collections show what the analyser keeps, apart from garbage not yet collected.
    if (retainedEvery > 0 && Math.floor(n / retainedEvery) > Math.floor(before / retainedEvery)) {
      gc()
      retained.push(mb(process.memoryUsage().heapUsed - baseline))
    }
  }
  const finishStart = performance.now()
  const finishCpu = process.cpuUsage()
  const result = analyzer.finish()
  const cpu = process.cpuUsage(finishCpu)
  analyserMs += performance.now() - finishStart
  analyserCpu += cpu.user + cpu.system
  const findings: Record<string, number> = {}
  for (const finding of result.findings) findings[finding.kind] = (findings[finding.kind] ?? 0) + 1
  return {
    events: n,
    analyserSeconds: analyserMs / 1000,
    analyserCpuSeconds: analyserCpu / 1e6,
    totalSeconds: (performance.now() - start) / 1000,
    peakHeapMb: mb(peak),
    retainedHeapMb: retained,
    findings,
  }
}

const rate = (events: number, seconds: number) => Math.round(events / seconds).toLocaleString('en')

function main(): void {
  const load = loadavg()[0]?.toFixed(1)
  console.log(
    `node ${process.version}, one core, gc ${typeof gc === 'function' ? 'exposed' : 'unavailable'}, load average ${load} on ${cpus().length} cores`,
  )
  // Warm-up: let the JIT settle before anything is timed.
  run(100_000, 0)
  for (const count of [10_000, 1_000_000]) {
    // Short runs are timed a few times: one GC pause would otherwise decide the figure.
    const runs = Array.from({ length: count < 100_000 ? 7 : 1 }, () => run(count, 0))
    const timed = runs.sort((a, b) => a.analyserCpuSeconds - b.analyserCpuSeconds)[
      Math.floor(runs.length / 2)
    ]!
    const retained = run(count, count / 10)
    console.log(
      [
        `${count.toLocaleString('en')} events${runs.length > 1 ? ` (median of ${runs.length} runs)` : ''}:`,
        `  analyser (CPU)   ${rate(timed.events, timed.analyserCpuSeconds)} events/s (${timed.analyserCpuSeconds.toFixed(3)} s of CPU)`,
        `  analyser (wall)  ${rate(timed.events, timed.analyserSeconds)} events/s (${timed.analyserSeconds.toFixed(3)} s)`,
        `  with generation  ${rate(timed.events, timed.totalSeconds)} events/s (${timed.totalSeconds.toFixed(3)} s)`,
        `  peak heap        ${retained.peakHeapMb} MB above the post-GC baseline (sampled per batch, garbage included)`,
        `  retained heap    ${retained.retainedHeapMb.join(', ')} MB after a forced GC at each tenth`,
        `  findings         ${JSON.stringify(timed.findings)}`,
      ].join('\n'),
    )
  }
}

main()
