import { describe, expect, it } from 'vitest'
import { stackFrames, stringifyArg } from '@/sdk/src/plugins/console'

describe('stackFrames', () => {
  it('writes V8 and Gecko frames the way the stock console plugin does, without the message line', () => {
    const v8 = [
      'Error',
      '    at consoleWrapper (https://cdn.example/sdk.js:1:200)',
      '    at renderCart (https://shop.example/app.js:88:14)',
      '    at https://shop.example/app.js:90:3',
    ].join('\n')
    expect(stackFrames(v8, 1)).toEqual([
      'renderCart (https://shop.example/app.js:88:14)',
      'https://shop.example/app.js:90:3',
    ])
    const gecko = [
      'consoleWrapper@https://cdn.example/sdk.js:1:200',
      'renderCart@https://shop.example/app.js:88:14',
    ].join('\n')
    expect(stackFrames(gecko, 1)).toEqual(['renderCart (https://shop.example/app.js:88:14)'])
    expect(stackFrames(undefined, 1)).toEqual([])
  })
})

describe('stringifyArg', () => {
  it('keeps quotes on strings and caps them', () => {
    expect(stringifyArg('[cart] added', 100, 1000)).toBe('"[cart] added"')
    expect(stringifyArg('x'.repeat(20), 5, 1000)).toBe('"xxxxx…"')
    expect(stringifyArg(3, 100, 1000)).toBe('3')
    expect(stringifyArg(undefined, 100, 1000)).toBe('undefined')
  })

  it('describes errors by their stack and survives circular, deep and huge objects', () => {
    const error = new TypeError('bad')
    expect(JSON.parse(stringifyArg(error, 10_000, 10_000))).toContain('TypeError: bad')
    const circular: Record<string, unknown> = { a: 1 }
    circular.self = circular
    expect(JSON.parse(stringifyArg(circular, 100, 1000))).toEqual({ a: 1, self: '[Circular]' })
    const deep = { l1: { l2: { l3: { l4: { l5: 1 } } } } }
    expect(JSON.parse(stringifyArg(deep, 100, 1000))).toEqual({ l1: { l2: { l3: '[Object]' } } })
    const wide = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i]))
    expect(Object.keys(JSON.parse(stringifyArg(wide, 100, 10_000)))).toHaveLength(51)
    expect(stringifyArg({ text: 'y'.repeat(5000) }, 10_000, 300).length).toBeLessThanOrEqual(301)
    const throwing = {
      get boom() {
        throw new Error('getter')
      },
    }
    expect(stringifyArg(throwing, 100, 1000)).toBe('"[unserializable]"')
  })
})
