/**
 * The mutation guard (docs/recorder.md#mutation-guard) against a stand-in DOM and mirror that
 * behave as rrweb's do where the guard relies on them: the mirror keeps an id per node until
 * reset, and the snapshot reuses a node's id and leaves out a node with the ignored id (-2).
 */
import type { eventWithTime, serializedNodeWithId } from '@rrweb/types'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createMutationGuard, type GuardMirror, MAX_CALM_SECONDS } from '@/sdk/src/mutation-guard'

class FakeNode {
  parentNode: FakeNode | null = null
  childNodes: FakeNode[] = []
  shadowRoot: FakeNode | null = null
  constructor(
    readonly nodeType: number,
    readonly tagName: string,
  ) {}
  get isConnected(): boolean {
    let node: FakeNode | null = this
    while (node.parentNode) node = node.parentNode
    return node.nodeType === 9 || node.nodeType === 11
  }
  append(...children: FakeNode[]): this {
    for (const child of children) {
      child.parentNode = this
      this.childNodes.push(child)
    }
    return this
  }
  contains(other: FakeNode): boolean {
    for (let node: FakeNode | null = other; node; node = node.parentNode) if (node === this) return true
    return false
  }
}
const el = (tag: string, ...children: FakeNode[]) => new FakeNode(1, tag.toUpperCase()).append(...children)

/** Pre-order over `root`'s light DOM, as a TreeWalker (it does not enter shadow roots). */
function walker(root: FakeNode) {
  const order: FakeNode[] = []
  const visit = (n: FakeNode) => {
    order.push(n)
    for (const c of n.childNodes) visit(c)
  }
  visit(root)
  let i = 0
  return { nextNode: () => order[++i] ?? null }
}

class FakeMirror implements GuardMirror {
  private ids = new WeakMap<object, number>()
  private nodes = new Map<number, FakeNode>()
  getNode(id: number) {
    return (this.nodes.get(id) ?? null) as unknown as Node | null
  }
  getId(node: Node | undefined | null) {
    return (node && this.ids.get(node)) ?? -1
  }
  add(node: Node, meta: serializedNodeWithId) {
    this.ids.set(node, meta.id)
    this.nodes.set(meta.id, node as unknown as FakeNode)
  }
  removeNodeFromMap(node: Node) {
    this.nodes.delete(this.getId(node))
    for (const child of (node as unknown as FakeNode).childNodes)
      this.removeNodeFromMap(child as unknown as Node)
  }
  reset() {
    this.ids = new WeakMap()
    this.nodes = new Map()
  }
}

let nextId = 1
/** rrweb's snapshot as far as ids go: the tags it serialised, the ignored nodes left out. */
function takeSnapshot(mirror: FakeMirror, doc: FakeNode): string[] {
  const out: string[] = []
  const visit = (n: FakeNode) => {
    let id = mirror.getId(n as unknown as Node)
    if (id === -2) return
    if (id === -1) {
      id = nextId++
      mirror.add(n as unknown as Node, { type: 2, tagName: n.tagName, attributes: {}, childNodes: [], id })
    }
    out.push(n.tagName)
    for (const c of n.childNodes) visit(c)
    if (n.shadowRoot) visit(n.shadowRoot)
  }
  visit(doc)
  return out
}

type ObserverCallback = (records: Array<Partial<MutationRecord>>) => void
let observers: ObserverCallback[] = []
const realObserver = globalThis.MutationObserver
beforeEach(() => {
  observers = []
  globalThis.MutationObserver = class {
    constructor(callback: ObserverCallback) {
      observers.push(callback)
    }
    observe() {}
    disconnect() {}
  } as unknown as typeof MutationObserver
})
afterEach(() => {
  globalThis.MutationObserver = realObserver
})

function setup(perSecond: number, body: FakeNode) {
  const doc = new FakeNode(9, '#document').append(el('html', el('head'), body))
  const mirror = new FakeMirror()
  const snapshots: string[][] = []
  const intervals: Array<() => void> = []
  const events: string[] = []
  const guard = createMutationGuard({
    maxMutationsPerSecond: perSecond,
    mirror,
    addCustomEvent: (_tag, payload) => events.push(payload.action),
    takeFullSnapshot: () => {
      snapshots.push(takeSnapshot(mirror, doc))
    },
    doc: Object.assign(doc, { createTreeWalker: walker }) as unknown as Document,
    win: {
      setTimeout: (f: () => void) => {
        f()
        return 0
      },
      setInterval: (f: () => void) => intervals.push(f),
      clearInterval: () => {},
    } as unknown as Window,
    log: () => {},
  })
  guard.snapshot()
  const idOf = (n: FakeNode) => mirror.getId(n as unknown as Node)
  /** One rrweb Mutation event with an attribute change on each of `nodes`. */
  const change = (nodes: FakeNode[]) =>
    guard.observe({
      type: 3,
      timestamp: Date.now(),
      data: { source: 0, adds: [], removes: [], texts: [], attributes: nodes.map((n) => ({ id: idOf(n) })) },
    } as unknown as eventWithTime)
  return { guard, mirror, doc, snapshots, intervals, events, idOf, change }
}

describe('the mutation guard', () => {
  it('keeps a stopped part, shadow roots included, in every later snapshot, and stopped after it', () => {
    const inShadow = el('span')
    const rows = Array.from({ length: 10 }, () => el('tr'))
    rows[0]!.shadowRoot = new FakeNode(11, '#shadow').append(inShadow)
    inShadow.parentNode = rows[0]!.shadowRoot
    const ticker = el('tbody', ...rows)
    const notes = el('ul')
    const t = setup(100, el('body', ticker, notes))
    expect(t.snapshots[0]).toContain('SPAN')
    for (let i = 0; i < 5 && t.idOf(ticker) !== -2; i++)
      t.change(Array.from({ length: 10 }, () => rows).flat())
    expect(t.events).toEqual(['subtree-stopped'])
    expect(t.idOf(ticker)).toBe(-2)
    expect(t.idOf(inShadow)).toBe(-2)

    t.guard.snapshot(true)
    const snapshot = t.snapshots.at(-1)!
    expect(snapshot.filter((tag) => tag === 'TR')).toHaveLength(10)
    expect(snapshot).toContain('TBODY')
    expect(snapshot).toContain('SPAN')
    // Stopped again after it: its changes go on being dropped; the rest records with fresh ids.
    expect(t.idOf(ticker)).toBe(-2)
    expect(t.idOf(rows[3]!)).toBe(-2)
    expect(t.idOf(inShadow)).toBe(-2)
    expect(t.idOf(notes)).toBeGreaterThan(0)
  })

  it("takes rrweb's own snapshot, ids kept, while nothing is stopped", () => {
    const quiet = el('p')
    const t = setup(100, el('body', quiet))
    const id = t.idOf(quiet)
    t.guard.snapshot(true)
    expect(t.idOf(quiet)).toBe(id)
  })

  it('does not cycle pause and resume on a page that inserts prebuilt subtrees: each re-pause waits twice as long', () => {
    const parts = Array.from({ length: 600 }, () => el('div'))
    const body = el('body', ...parts)
    const t = setup(100, body)
    const trip = () => {
      for (let i = 0; i < 5 && t.events.at(-1) !== 'page-paused'; i++) t.change(parts)
      expect(t.events.at(-1)).toBe('page-paused')
      expect(t.idOf(body)).toBe(-2)
    }
    /** Seconds of calm until the pause resumed; each second the page inserts a subtree first when `busy`. */
    const calmUntilResume = (): number => {
      const tick = t.intervals.at(-1)!
      for (let seconds = 1; seconds <= MAX_CALM_SECONDS + 1; seconds++) {
        tick()
        if (t.events.at(-1) === 'page-resumed') return seconds
      }
      return -1
    }
    trip()
    // One appendChild of a 150-node subtree is 150 changes to rrweb, not one record.
    const subtree = el('section', ...Array.from({ length: 149 }, () => el('i')))
    observers.at(-1)!([
      {
        type: 'childList',
        target: body as unknown as Node,
        addedNodes: [subtree] as unknown as NodeList,
        removedNodes: [] as unknown as NodeList,
      },
    ])
    t.intervals.at(-1)!()
    expect(t.events.at(-1)).toBe('page-paused')
    expect(calmUntilResume()).toBe(1)
    expect(t.idOf(body)).toBeGreaterThan(0)
    trip()
    expect(calmUntilResume()).toBe(2)
    trip()
    expect(calmUntilResume()).toBe(4)
    // A snapshot asked while paused shows the page as it is and leaves it paused.
    trip()
    const before = t.snapshots.length
    t.guard.snapshot(true)
    expect(t.snapshots).toHaveLength(before + 1)
    expect(t.snapshots.at(-1)).toContain('BODY')
    expect(t.idOf(body)).toBe(-2)
  })
})
