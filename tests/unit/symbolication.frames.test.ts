import { encode } from '@jridgewell/sourcemap-codec'
import { decodedMappings, eachMapping, TraceMap } from '@jridgewell/trace-mapping'
import { beforeAll, describe, expect, it } from 'vitest'
import type { MinifiedFrame } from '@/lib/analysis/frames'
import { frameKey } from '@/lib/analysis/frames'
import { enclosingFunctionName } from '@/lib/symbolication/function-name'
import {
  admitsMap,
  HEAP_PER_STORED_BYTE,
  mapHeapBudgetBytes,
  mapHeapEstimate,
  storedHeapEstimate,
} from '@/lib/symbolication/heap-estimate'
import { MapCache } from '@/lib/symbolication/map-cache'
import { LookupResolver, type MapState, symbolicateFrame } from '@/lib/symbolication/symbolicate-frames'
import { checkMap } from '@/lib/symbolication/validate-map'
import { type Bundle, bundle, stackOf } from '../helpers/source-maps'

const URL = 'https://cdn.example/assets/app-3f9a.js'
const bytes = (text: string) => new TextEncoder().encode(text)
const state = (text: string): MapState => new MapCache({ maxBytes: 1e9 }).load('k', bytes(text))

const FORMAT = `export function formatTotal(total: number): string {
  const currency = (globalThis as { currency?: { symbol: string } }).currency
  return currency!.symbol + total.toFixed(2)
}
`
const CHECKOUT = `import { formatTotal } from './format'

export function submitOrder(order: { items: number[] }): string {
  const total = order.items.reduce((sum, item) => sum + item, 0)
  return formatTotal(total)
}

;(globalThis as Record<string, unknown>).go = () => submitOrder({ items: [1, 2] })
`
const SINGLE = `function formatTotal(total: number): string {
  const currency = (globalThis as { currency?: { symbol: string } }).currency
  return currency!.symbol + total.toFixed(2)
}

export function submitOrder(items: number[]): string {
  return formatTotal(items.length)
}

;(globalThis as Record<string, unknown>).go = () => submitOrder([1])
`
const BOOM = `export function explode(reason: string): never {
  throw new Error(\`boom: \${reason}\`)
}

;(globalThis as Record<string, unknown>).go = () => explode('x')
`

let app: Bundle
let appStack: MinifiedFrame[]

beforeAll(async () => {
  app = await bundle({ 'checkout.ts': CHECKOUT, 'format.ts': FORMAT }, 'checkout.ts')
  appStack = stackOf(app.js, URL, 'go()')
})

describe('symbolicateFrame on an esbuild bundle', () => {
  it('names the original function, file, line and source line of a function minified to one letter', () => {
    const [top, caller] = appStack
    expect(top!.fn).toMatch(/^[a-zA-Z]$/)
    expect(top!.line).toBe(1)
    const map = state(app.map)
    const withCaller = symbolicateFrame({ frame: top!, map, callers: [{ frame: caller!, map }] })
    expect(withCaller).toEqual({
      minified: top,
      status: 'mapped',
      original: {
        fn: 'formatTotal',
        source: '../src/format.ts',
        line: 3,
        column: expect.any(Number),
        context: {
          pre: [
            'export function formatTotal(total: number): string {',
            '  const currency = (globalThis as { currency?: { symbol: string } }).currency',
          ],
          line: '  return currency!.symbol + total.toFixed(2)',
          post: ['}'],
        },
      },
    })
    // Without the stack (the caller is in another source anyway), the source names it.
    expect(symbolicateFrame({ frame: top!, map, callers: [] }).original?.fn).toBe('formatTotal')
    const second = symbolicateFrame({ frame: caller!, map, callers: [] })
    expect(second.original).toMatchObject({ fn: 'submitOrder', source: '../src/checkout.ts', line: 5 })
  })

  it("names a function by its caller's call site when the map has no sources content", async () => {
    const single = await bundle({ 'single.ts': SINGLE }, 'single.ts', { sourcesContent: false })
    const [top, caller] = stackOf(single.js, URL, 'go()')
    const map = state(single.map)
    const named = symbolicateFrame({ frame: top!, map, callers: [{ frame: caller!, map }] })
    expect(named.original).toMatchObject({
      fn: 'formatTotal',
      source: '../src/single.ts',
      line: 3,
      context: null,
    })
    // Alone, only the mapping's own name is left: the token that threw, not the function.
    expect(symbolicateFrame({ frame: top!, map, callers: [] }).original?.fn).not.toBe('formatTotal')
  })

  it('reads V8 positions as 1-based lines and columns, and answers 1-based ones', async () => {
    const boom = await bundle({ 'boom.ts': BOOM }, 'boom.ts')
    const [top] = stackOf(boom.js, URL, 'go()')
    const frame = symbolicateFrame({ frame: top!, map: state(boom.map), callers: [] })
    // `throw new Error(…)`: V8 points at `new`, the 9th character of the original line 2.
    expect(frame.original).toMatchObject({ fn: 'explode', source: '../src/boom.ts', line: 2, column: 9 })
    expect(frame.original!.context!.line.slice(8)).toMatch(/^new Error/)

    // Every generated segment is found at its own column + 1, and one column before it is the previous segment.
    const trace = new TraceMap(app.map)
    const segments: { column: number; line: number; original: number }[] = []
    eachMapping(trace, (m) => {
      if (m.generatedLine === 1 && m.originalLine !== null)
        segments.push({ column: m.generatedColumn, line: m.originalLine, original: m.originalColumn! })
    })
    const map = state(app.map)
    let checked = 0
    for (let i = 1; i < segments.length; i++) {
      const { column, line, original } = segments[i]!
      const previous = segments[i - 1]!
      if (previous.column === column || (previous.line === line && previous.original === original)) continue
      const at = symbolicateFrame({
        frame: { fn: '', url: URL, line: 1, column: column + 1 },
        map,
        callers: [],
      })
      expect(at.original).toMatchObject({ line, column: original + 1 })
      const before = symbolicateFrame({ frame: { fn: '', url: URL, line: 1, column }, map, callers: [] })
      expect(before.original).toMatchObject({ line: previous.line, column: previous.original + 1 })
      checked++
    }
    expect(checked).toBeGreaterThan(10)
  })

  it('answers no_mapping for positions the map does not cover and for impossible positions', () => {
    const map = state(app.map)
    for (const [line, column] of [
      [2, 1],
      [1, 0],
      [0, 5],
      [1, Number.NaN],
      [1e12, 1],
    ] as const)
      expect(symbolicateFrame({ frame: { fn: '', url: URL, line, column }, map, callers: [] }).status).toBe(
        'no_mapping',
      )
  })

  it('cuts context lines, and the frame line around its column, to 300 characters', () => {
    const long = `${'x'.repeat(50_000)}THROW${'y'.repeat(50_000)}`
    const map = JSON.stringify({
      version: 3,
      sources: ['min.js'],
      sourcesContent: [`${'a'.repeat(1000)}\n${long}\n`],
      names: [],
      mappings: encode([[[0, 0, 1, 50_000]]]),
    })
    const frame = symbolicateFrame({
      frame: { fn: '', url: URL, line: 1, column: 1 },
      map: state(map),
      callers: [],
    })
    expect(frame.original!.context!.pre).toEqual(['a'.repeat(300)])
    expect(frame.original!.context!.line).toHaveLength(300)
    expect(frame.original!.context!.line).toContain('THROW')
  })
})

describe('hostile maps', () => {
  const frame: MinifiedFrame = { fn: 't', url: URL, line: 1, column: 5 }
  const resolve = (text: string) => symbolicateFrame({ frame, map: state(text), callers: [] }).status
  const regular = (overrides: Record<string, unknown>) =>
    JSON.stringify({ version: 3, sources: ['a.ts'], names: ['n'], mappings: 'AAAA', ...overrides })

  it('fails the frames of a map that is not a usable source map, without throwing', () => {
    expect(resolve('not json {')).toBe('failed')
    expect(resolve('[1,2]')).toBe('failed')
    expect(resolve(regular({ sources: undefined }))).toBe('failed')
    expect(resolve(regular({ sources: [1] }))).toBe('failed')
    expect(resolve(regular({ mappings: 42 }))).toBe('failed')
    expect(resolve(regular({ version: 2 }))).toBe('failed')
    expect(resolve(regular({ mappings: 'AA!A' }))).toBe('failed')
    expect(resolve(regular({ mappings: ';'.repeat(2_000_000) }))).toBe('failed')
    expect(resolve(regular({ mappings: 'A'.repeat(10_000_001) }))).toBe('failed')
    expect(resolve(regular({ sourcesContent: [{}] }))).toBe('failed')
  })

  it('refuses a huge sourceRoot and cuts huge names and sources to bounds', () => {
    expect(resolve(regular({ sourceRoot: 'r'.repeat(5_000_000) }))).toBe('failed')
    const huge = symbolicateFrame({
      frame,
      map: state(
        regular({ sources: ['s'.repeat(5_000_000)], names: ['n'.repeat(5_000_000)], mappings: 'AAAAA' }),
      ),
      callers: [],
    })
    expect(huge.status).toBe('mapped')
    expect(huge.original!.fn!.length).toBeLessThanOrEqual(200)
    expect(huge.original!.source.length).toBeLessThanOrEqual(500)
  })

  it('answers no_mapping where a segment points at sources or names out of range, or negative', () => {
    expect(resolve(regular({ mappings: encode([[[0, 5, 0, 0]]]) }))).toBe('no_mapping')
    expect(resolve(regular({ mappings: encode([[[0, -1, 0, 0]]]) }))).toBe('no_mapping')
    expect(resolve(regular({ mappings: encode([[[0, 0, -3, 0]]]) }))).toBe('no_mapping')
    const badName = symbolicateFrame({
      frame,
      map: state(regular({ mappings: encode([[[0, 0, 0, 0, 9]]]) })),
      callers: [],
    })
    expect(badName).toMatchObject({
      status: 'mapped',
      original: { fn: null, source: 'a.ts', line: 1, column: 1 },
    })
  })

  it('decodes 10 MB of VLQ garbage in bounded time and answers without throwing', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/,;'
    let seed = 7
    const chars: string[] = []
    for (let i = 0; i < 10 * 1024 * 1024; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      chars.push(alphabet[seed % alphabet.length]!)
    }
    const started = performance.now()
    const status = resolve(regular({ mappings: chars.join('') }))
    expect(['failed', 'no_mapping', 'mapped']).toContain(status)
    expect(performance.now() - started).toBeLessThan(20_000)
  })

  it('reads index maps (sections) one level deep, and fails nested or unordered ones', () => {
    const section = (line: number, map: Record<string, unknown>) => ({ offset: { line, column: 0 }, map })
    const inner = {
      version: 3,
      sources: ['b.ts'],
      sourcesContent: ['const b = 1\n'],
      names: [],
      mappings: 'AAAA',
    }
    const indexed = JSON.stringify({
      version: 3,
      sections: [section(0, inner), section(3, { ...inner, sources: ['c.ts'] })],
    })
    const third = symbolicateFrame({
      frame: { fn: '', url: URL, line: 4, column: 1 },
      map: state(indexed),
      callers: [],
    })
    expect(third.original).toMatchObject({ source: 'c.ts', line: 1, column: 1 })
    expect(resolve(JSON.stringify({ version: 3, sections: [section(0, { sections: [] })] }))).toBe('failed')
    expect(resolve(JSON.stringify({ version: 3, sections: [section(3, inner), section(0, inner)] }))).toBe(
      'failed',
    )
    expect(
      resolve(JSON.stringify({ version: 3, sections: [{ offset: { line: -1, column: 0 }, map: inner }] })),
    ).toBe('failed')
    expect(resolve(JSON.stringify({ version: 3, sections: 'x' }))).toBe('failed')
  })
})

describe('MapCache', () => {
  const map = (name: string) =>
    bytes(
      JSON.stringify({ version: 3, sources: [name], names: [], mappings: 'AAAA', pad: 'p'.repeat(10_000) }),
    )

  it('keeps parsed maps within its byte bound, evicting the least recently used', () => {
    const cache = new MapCache({ maxBytes: 25_000 })
    cache.load('a', map('a'))
    cache.load('b', map('b'))
    expect(cache.get('a')).toBeDefined()
    cache.load('c', map('c'))
    expect(cache.size).toBe(2)
    expect(cache.heldBytes).toBeLessThanOrEqual(25_000)
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')).toBeDefined()
    // Larger than the whole cache: parsed and used, not kept.
    const big = new MapCache({ maxBytes: 5_000 })
    expect('trace' in big.load('big', map('big'))).toBe(true)
    expect(big.get('big')).toBeUndefined()
  })

  it('remembers a map that failed to parse, not one storage did not have', () => {
    const cache = new MapCache({ maxBytes: 1e6 })
    expect(cache.load('bad', bytes('nope'))).toEqual({ failed: 'not JSON (UTF-8)' })
    expect(cache.get('bad')).toEqual({ failed: 'not JSON (UTF-8)' })
    cache.load('gone', null)
    expect(cache.get('gone')).toBeUndefined()
  })
})

describe('enclosingFunctionName', () => {
  const nameAt = (source: string, marker = 'HERE') => enclosingFunctionName(source, 0, source.indexOf(marker))

  it.each([
    ['function declarations', 'function outer() {\n  function inner(a) { HERE }\n}', 'inner'],
    [
      'methods with types',
      'class A {\n  async submit(order: Order): Promise<void> {\n    if (x) { HERE }\n  }\n}',
      'submit',
    ],
    ['assigned function expressions', 'api.save = function (a) { HERE }', 'save'],
    ['object properties', 'const o = { a: 1, save: function () { HERE } }', 'save'],
    ['arrow constants', 'export const handle = async (e: Event): Promise<void> => {\n HERE\n}', 'handle'],
    ['typed arrow constants', 'const handle: Handler<E> = (e) => { HERE }', 'handle'],
    ['concise arrows', 'const total = (items) => items.reduce(HERE)', 'total'],
    ['callbacks, by their function', 'function pay(items) {\n  items.forEach((i) => { HERE })\n}', 'pay'],
    [
      'braces in strings and comments',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source under test holds a template literal
      'function f() {\n  const s = "}"; // }\n  /* } */ const t = `${"}"}`\n  HERE\n}',
      'f',
    ],
    ['closed functions', 'function done() {}\nconst x = 1; HERE', null],
    ['closed arrows', 'const done = () => {}\nrun(HERE)', null],
    ['signatures with object types', 'function pay(o: { a: { b: T } }): R {\n  return o.a(HERE)\n}', 'pay'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source under test holds a template literal
    ['template interpolations', 'function t() {\n  const s = `a${b({ c: `${d}` })}e`\n  HERE\n}', 't'],
    ['named function expressions in calls', 'run(function worker() { HERE })', 'worker'],
    ['if blocks in functions', 'function check(a) {\n  if (a) {\n    for (;;) { HERE }\n  }\n}', 'check'],
  ])('%s', (_, source, name) => {
    expect(nameAt(source)).toBe(name)
  })
})

describe('one map at a time, within a heap budget', () => {
  it('resolves lookups map by map as one pass over every map would, and fails a frame whose map never came', () => {
    const [top, caller] = appStack
    const map = state(app.map)
    // The caller's map under another key: the frame's name comes from a map applied separately.
    const lookups = [
      { frame: top!, mapKey: 'a', callers: [{ frame: caller!, mapKey: 'b' }] },
      { frame: caller!, mapKey: 'b', callers: [] },
      { frame: { fn: '', url: URL, line: 1, column: 2 }, mapKey: 'never', callers: [] },
    ]
    const resolver = new LookupResolver(lookups)
    expect(resolver.mapKeys).toEqual(['a', 'b', 'never'])
    resolver.apply('b', map)
    resolver.apply('a', state(app.map))
    const frames = resolver.result()
    expect(frames[frameKey(top!)]).toEqual(
      symbolicateFrame({ frame: top!, map, callers: [{ frame: caller!, map }] }),
    )
    expect(frames[frameKey(caller!)]).toEqual(symbolicateFrame({ frame: caller!, map, callers: [] }))
    expect(frames[frameKey(lookups[2]!.frame)]!.status).toBe('failed')
  })

  it('estimates at upload the heap a map takes while parsed, from its size and the numbers of its mappings', () => {
    const check = checkMap('app.js.map', bytes(app.map))
    if (!check.ok) throw new Error(check.error)
    const numbers = decodedMappings(new TraceMap(app.map))
      .flat()
      .reduce((sum, segment) => sum + segment.length, 0)
    expect(check.heapEstimateBytes).toBe(mapHeapEstimate(bytes(app.map).byteLength, numbers))
    // The peak while parsing is above what the parsed map keeps (the cache's figure).
    const parsed = state(app.map)
    if ('failed' in parsed) throw new Error(parsed.failed)
    expect(check.heapEstimateBytes).toBeGreaterThan(parsed.heapBytes)
  })

  it('admits a map whose estimate fits the share of the worker heap, and estimates older uploads from their size', () => {
    const budget = mapHeapBudgetBytes(64)
    expect(budget).toBe(Math.floor(64 * 1024 * 1024 * 0.4))
    expect(admitsMap({ sizeBytes: 1, heapEstimateBytes: budget }, 64)).toBe(true)
    expect(admitsMap({ sizeBytes: 1, heapEstimateBytes: budget + 1 }, 64)).toBe(false)
    // A small map with a huge stored estimate is judged by the estimate, not its size.
    expect(admitsMap({ sizeBytes: 1_000, heapEstimateBytes: 10 * budget }, 64)).toBe(false)
    expect(storedHeapEstimate({ sizeBytes: 1_000, heapEstimateBytes: null })).toBe(
      1_000 * HEAP_PER_STORED_BYTE,
    )
    const fits = Math.floor(budget / HEAP_PER_STORED_BYTE)
    expect(admitsMap({ sizeBytes: fits, heapEstimateBytes: null }, 64)).toBe(true)
    expect(admitsMap({ sizeBytes: fits + 1, heapEstimateBytes: null }, 64)).toBe(false)
  })
})
