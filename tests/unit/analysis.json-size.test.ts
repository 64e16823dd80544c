/**
 * The trail measures its entries without writing them (lib/analysis/json-size.ts): the count
 * must be exactly the UTF-8 length of JSON.stringify's text, whatever a hostile page put in the
 * strings, or the 1 MB cut would fall on another entry.
 */
import { describe, expect, it } from 'vitest'
import { jsonUtf8Length } from '@/lib/analysis/json-size'

const written = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

describe('jsonUtf8Length', () => {
  it('counts every UTF-16 code unit as JSON.stringify writes it', () => {
    const wrong: string[] = []
    for (let code = 0; code <= 0xffff; code++) {
      const text = `a${String.fromCharCode(code)}b`
      if (jsonUtf8Length(text) !== written(text)) wrong.push(`U+${code.toString(16)}`)
    }
    expect(wrong).toEqual([])
  })

  it('counts surrogate pairs, unpaired halves, escapes and mixed text', () => {
    const texts = [
      '',
      '😀',
      '\ud83d',
      '\ude00',
      '\ude00\ud83d',
      'x\ud83d\ud83d\ude00y',
      '"quoted" \\ back\\slash\n\t\r\b\f\u0000\u001f\u007f',
      'héllo wörld — …[truncated]',
      `${'é'.repeat(5000)}\ud800`,
      'plain ASCII with spaces, [brackets] and {braces}',
    ]
    for (const text of texts) expect(jsonUtf8Length(text)).toBe(written(text))
  })

  it('counts numbers, booleans, null and plain objects as JSON.stringify does', () => {
    const values: unknown[] = [
      0,
      -0,
      7,
      -7,
      9,
      10,
      99,
      100,
      1_800_000_000_123,
      -1_800_000_000_123,
      2 ** 53 + 2,
      1e20,
      1e21,
      123456789012345680000,
      1.5,
      -0.000001,
      1e-7,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.MAX_VALUE,
      true,
      false,
      null,
      {},
      { a: 1, skipped: undefined, fn: () => 1, sym: Symbol('s'), 'k"ey\u0001': 'v' },
      {
        kind: 'click',
        at: 1_800_000_000_000,
        target: { tag: 'button', role: null, name: 'Pay 😀' },
        count: 3,
      },
    ]
    for (const value of values) expect(jsonUtf8Length(value), String(value)).toBe(written(value))
  })

  it('writes what it does not walk: arrays, dates, objects with toJSON or a prototype', () => {
    const values: unknown[] = [
      ['a', 1, null, undefined],
      new Date(0),
      { toJSON: () => 'x' },
      Object.create({ inherited: 1 }, { own: { value: 'é', enumerable: true } }),
      { nested: [{ deep: '\ud800' }] },
    ]
    for (const value of values) expect(jsonUtf8Length(value)).toBe(written(value))
  })
})
