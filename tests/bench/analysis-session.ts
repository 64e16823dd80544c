/**
 * The synthetic session of the analysis benchmarks: a long shopping session (clicks, typing,
 * mutations, mouse moves, console and network events, periodic full snapshots), the same one
 * every run. Shared by `analysis.ts` (time and memory) and `analysis-instructions.ts`
 * (instruction counts under callgrind), so both measure the same input.
 */

import type { RrwebEvent } from '@/lib/analysis/types'

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

export const ORIGIN = 'https://shop.example.com'
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
export function* session(count: number, seed = 1): Generator<RrwebEvent> {
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
