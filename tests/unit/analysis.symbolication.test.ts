/**
 * What analysis does with source maps (docs/source-maps.md): the first pass reports the
 * positions its error stacks name (errorFrames, bounded); the second, given a Symbolication,
 * groups, describes and shows js_errors by their original frames, so a rebuild that moves
 * every minified column keeps the issue, and a Symbolication that mapped nothing changes
 * nothing.
 */
import { describe, expect, it } from 'vitest'
import { analyzeEvents } from '@/lib/analysis'
import { MAX_ERROR_FRAMES, MAX_FRAMES_PER_ERROR } from '@/lib/analysis/error-frames'
import {
  frameKey,
  type MinifiedFrame,
  type OriginalFrame,
  type SymbolicatedEvidence,
  type Symbolication,
} from '@/lib/analysis/frames'
import { normaliseSourcePath } from '@/lib/analysis/original-frames'
import { parsePositionedFrame } from '@/lib/analysis/stack'
import { el, page, SessionBuilder, txt } from '@/lib/analysis/testing/events'
import type { Finding } from '@/lib/analysis/types'

const ORIGIN = 'https://shop.example.com'
const HREF = `${ORIGIN}/checkout`
const DOC = page([el(10, 'button', { id: 'pay' }, [txt(11, 'Pay now')]), el(12, 'div', { id: 'out' })])
const MESSAGE = "TypeError: Cannot read properties of undefined (reading 'total')"

/** A V8 stack of minified frames: [fn, file, line, column], top first. */
function stack(frames: [string, string, number, number][]): string {
  return [
    MESSAGE,
    ...frames.map(([fn, file, line, col]) => `    at ${fn} (${ORIGIN}/${file}:${line}:${col})`),
  ].join('\n')
}

function minified(fn: string, file: string, line: number, column: number): MinifiedFrame {
  return { fn, url: `${ORIGIN}/${file}`, line, column }
}

function original(fn: string | null, source: string, line: number, column: number): OriginalFrame {
  return {
    fn,
    source,
    line,
    column,
    context: { pre: ['function checkout(cart) {'], line: '  cart.total', post: ['}'] },
  }
}

function symbolication(release: string, pairs: [MinifiedFrame, OriginalFrame | null][]): Symbolication {
  const frames: Symbolication['frames'] = {}
  for (const [frame, orig] of pairs)
    frames[frameKey(frame)] = { minified: frame, original: orig, status: orig ? 'mapped' : 'no_mapping' }
  return { release, frames }
}

function session(stacks: string[], message = MESSAGE): SessionBuilder {
  const b = new SessionBuilder()
    .load(HREF, DOC)
    .wait(500)
    .click(10)
    .mutation({
      attributes: [{ id: 12, attributes: { class: 'busy' } }],
    })
  for (const s of stacks) b.wait(100).sdkError('TypeError', message, s)
  // Stays on the page, so the blocking adjustment keeps out of the comparison.
  return b.wait(31_000).mouseMove()
}

const errorsOf = (findings: Finding[]) => findings.filter((f) => f.kind === 'js_error')
/** What a symbolicated js_error's evidence holds beside the spec's fields. */
const symbolicated = (finding: Finding) => finding.evidence as Partial<SymbolicatedEvidence>

// Release 1: `checkout` was minified to `t` in app-3f9a.js; `submit` to `n`.
const R1_TOP = minified('t', 'assets/app-3f9a2c1d.js', 1, 48213)
const R1_CALLER = minified('n', 'assets/app-3f9a2c1d.js', 1, 1022)
const R1_STACK = stack([
  ['t', 'assets/app-3f9a2c1d.js', 1, 48213],
  ['n', 'assets/app-3f9a2c1d.js', 1, 1022],
])
const CHECKOUT = original('checkout', 'webpack://shop/./src/checkout.ts', 12, 5)
const SUBMIT = original('submit', 'webpack://shop/./src/form.ts', 40, 3)
const R1 = symbolication('1.0.0', [
  [R1_TOP, CHECKOUT],
  [R1_CALLER, SUBMIT],
])

describe('frame positions', () => {
  it('reads line and column from every stack shape, and nothing from an absurd number', () => {
    expect(parsePositionedFrame('    at t (https://x.example/app.js:1:48213)')).toEqual({
      fn: 't',
      url: 'https://x.example/app.js',
      line: 1,
      column: 48213,
    })
    expect(parsePositionedFrame('t@https://x.example/app.js:3:7')).toMatchObject({ line: 3, column: 7 })
    expect(parsePositionedFrame('addToCart (https://x.example/app.js:13:48)')).toMatchObject({
      fn: 'addToCart',
      line: 13,
      column: 48,
    })
    expect(parsePositionedFrame('http://127.0.0.1:45651/account:37')).toMatchObject({
      url: 'http://127.0.0.1:45651/account',
      line: 37,
      column: null,
    })
    expect(parsePositionedFrame('at https://x.example/app.js:1:99999999999')).toMatchObject({
      line: 1,
      column: null,
    })
  })

  it('normalises original source paths to what a rebuild keeps', () => {
    for (const source of [
      'webpack://shop/./src/checkout.ts',
      'webpack:///./src/checkout.ts',
      '../src/checkout.ts',
      './src/checkout.ts',
      'src/checkout.ts?5d1e',
      '..\\src\\checkout.ts',
    ])
      expect(normaliseSourcePath(source)).toBe('src/checkout.ts')
  })
})

describe('errorFrames (first pass)', () => {
  it('lists each distinct position once, the top in-app frames first, console stacks too', async () => {
    const other = stack([
      ['r', 'assets/vendor-aa11bb22.js', 2, 10],
      ['q', 'assets/app-3f9a2c1d.js', 1, 5000],
    ])
    const b = session([R1_STACK, R1_STACK, other])
    b.console('error', ['render failed'], [`x (${ORIGIN}/assets/app-3f9a2c1d.js:1:777)`])
    const { errorFrames } = await analyzeEvents(b.events)
    expect(errorFrames).toEqual([
      R1_TOP,
      minified('r', 'assets/vendor-aa11bb22.js', 2, 10),
      R1_CALLER,
      minified('q', 'assets/app-3f9a2c1d.js', 1, 5000),
      minified('x', 'assets/app-3f9a2c1d.js', 1, 777),
    ])
    expect((await analyzeEvents(session([]).events)).errorFrames).toEqual([])
  })

  it('takes the first frames of each stack and stops at MAX_ERROR_FRAMES', async () => {
    const deep = stack(
      Array.from({ length: 40 }, (_, i): [string, string, number, number] => ['f', 'a.js', 1, i + 1]),
    )
    const one = await analyzeEvents(session([deep]).events)
    expect(one.errorFrames).toHaveLength(MAX_FRAMES_PER_ERROR)
    // Each error a new message and a new stack: far more positions than the cap.
    const b = new SessionBuilder().load(HREF, DOC)
    for (let n = 0; n < 60; n++)
      b.sdkError(
        'Error',
        `failure ${'x'.repeat(n)}`,
        stack(
          Array.from({ length: 20 }, (_, i): [string, string, number, number] => ['f', 'a.js', n + 1, i + 1]),
        ),
      )
    const many = await analyzeEvents(b.events)
    expect(many.errorFrames).toHaveLength(MAX_ERROR_FRAMES)
    // Every error's top frame made it, ahead of the deeper frames that filled the rest.
    expect(many.errorFrames!.slice(0, 60).map((f) => [f.line, f.column])).toEqual(
      Array.from({ length: 60 }, (_, n) => [n + 1, 1]),
    )
  })
})

describe('second pass, with original frames', () => {
  it('fingerprints, describes and shows the error by its original frame', async () => {
    const events = session([R1_STACK]).events
    const [plain] = errorsOf((await analyzeEvents(events)).findings)
    const result = await analyzeEvents(events, { symbolication: R1 })
    const [finding] = errorsOf(result.findings)
    expect(finding!.fingerprint).not.toBe(plain!.fingerprint)
    expect(finding!.title).toBe(plain!.title)
    expect(finding!.description).toContain(' in checkout (src/checkout.ts:12) on /checkout.')
    expect(plain!.description).toContain(' in t (/assets/app-*.js) on /checkout.')
    expect(finding!.stepsToReplicate.split('\n').at(-1)).toMatch(
      /TypeError: .* is thrown in checkout \(src\/checkout\.ts:12\)/,
    )
    const evidence = symbolicated(finding!)
    expect(finding!.evidence.stack).toEqual(plain!.evidence.stack)
    expect(evidence.release).toBe('1.0.0')
    expect(evidence.frames).toEqual([
      { minified: R1_TOP, original: CHECKOUT, status: 'mapped' },
      { minified: R1_CALLER, original: SUBMIT, status: 'mapped' },
    ])
    const error = result.trail.entries.find((entry) => entry.kind === 'error')
    expect(error).toMatchObject({
      stack: expect.stringContaining('app-3f9a2c1d.js:1:48213'),
      originalStack: 'at checkout (src/checkout.ts:12:5)\nat submit (src/form.ts:40:3)',
    })
  })

  it('keeps the issue across a rebuild that renames and moves every minified frame', async () => {
    // Release 2: the same code bundled again; the function is now `e`, elsewhere in a new file.
    const r2Top = minified('e', 'assets/app-77c0e1f2.js', 1, 51877)
    const r2Stack = stack([
      ['e', 'assets/app-77c0e1f2.js', 1, 51877],
      ['o', 'assets/app-77c0e1f2.js', 1, 990],
    ])
    const r2 = symbolication('2.0.0', [[r2Top, original('checkout', '../src/checkout.ts', 12, 5)]])
    const [before] = errorsOf(
      (await analyzeEvents(session([R1_STACK]).events, { symbolication: R1 })).findings,
    )
    const [after] = errorsOf((await analyzeEvents(session([r2Stack]).events, { symbolication: r2 })).findings)
    expect(after!.fingerprint).toBe(before!.fingerprint)
    // Without maps the two builds are two issues: what symbolication is for.
    const [plain1] = errorsOf((await analyzeEvents(session([R1_STACK]).events)).findings)
    const [plain2] = errorsOf((await analyzeEvents(session([r2Stack]).events)).findings)
    expect(plain2!.fingerprint).not.toBe(plain1!.fingerprint)
    // The caller did not map in release 2: it shows as it was found.
    expect(symbolicated(after!).frames?.[1]).toMatchObject({
      status: 'no_map',
      original: null,
    })
  })

  it('keeps the issue when the message names a variable the minifier renamed', async () => {
    const r2Top = minified('e', 'assets/app-77c0e1f2.js', 1, 51877)
    const r2Stack = stack([['e', 'assets/app-77c0e1f2.js', 1, 51877]])
    const r2 = symbolication('2.0.0', [[r2Top, original('checkout', '../src/checkout.ts', 12, 5)]])
    const fingerprintOf = async (stackText: string, message: string, with_: Symbolication) =>
      errorsOf(
        (await analyzeEvents(session([stackText], message).events, { symbolication: with_ })).findings,
      )[0]!.fingerprint
    const before = await fingerprintOf(R1_STACK, 't.items.map is not a function', R1)
    expect(await fingerprintOf(r2Stack, 'n.items.map is not a function', r2)).toBe(before)
    // The property is the code's own name: another one is another bug.
    expect(await fingerprintOf(r2Stack, 'n.lines.map is not a function', r2)).not.toBe(before)
  })

  it('collapses two minified positions of one original function into one finding', async () => {
    // Two inlined copies of `checkout`, in two chunks: two findings by minified frames.
    const a = stack([['t', 'assets/app-3f9a2c1d.js', 1, 48213]])
    const b = stack([['k', 'assets/chunk-0b1c2d3e.js', 1, 311]])
    const maps = symbolication('1.0.0', [
      [R1_TOP, CHECKOUT],
      [minified('k', 'assets/chunk-0b1c2d3e.js', 1, 311), original('checkout', 'src/checkout.ts', 14, 9)],
    ])
    const events = session([a, b]).events
    expect(errorsOf((await analyzeEvents(events)).findings)).toHaveLength(2)
    const findings = errorsOf((await analyzeEvents(events, { symbolication: maps })).findings)
    expect(findings.map((f) => f.occurrences)).toEqual([2])
  })

  it('changes nothing when no frame mapped, or only frames below the top in-app one', async () => {
    const events = session([R1_STACK]).events
    const plain = await analyzeEvents(events)
    const unmapped = symbolication('1.0.0', [
      [R1_TOP, null],
      [R1_CALLER, null],
    ])
    expect(await analyzeEvents(events, { symbolication: unmapped })).toEqual(plain)
    expect(await analyzeEvents(events, { symbolication: { release: '1.0.0', frames: {} } })).toEqual(plain)
    // The caller mapped, the top did not: grouped as before, the mapped frame shown.
    const callerOnly = symbolication('1.0.0', [
      [R1_TOP, null],
      [R1_CALLER, SUBMIT],
    ])
    const [finding] = errorsOf((await analyzeEvents(events, { symbolication: callerOnly })).findings)
    const [before] = errorsOf(plain.findings)
    expect(finding!.fingerprint).toBe(before!.fingerprint)
    expect(finding!.description).toBe(before!.description)
    expect(symbolicated(finding!).frames?.map((f) => f.status)).toEqual(['no_mapping', 'mapped'])
  })
})
