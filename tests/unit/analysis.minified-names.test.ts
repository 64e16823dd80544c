import { describe, expect, it } from 'vitest'
import { withoutMinifiedNames } from '@/lib/analysis/minified-names'

describe('error messages without the names a minifier chose', () => {
  it.each([
    ['e.map is not a function', '<var>.map is not a function'],
    ['n.items.map is not a function', '<var>.items.map is not a function'],
    ['t is not a function', '<var> is not a function'],
    ['o is not iterable', '<var> is not iterable'],
    [
      'r is not a function or its return value is not iterable',
      '<var> is not a function or its return value is not iterable',
    ],
    ['a.Client is not a constructor', '<var>.Client is not a constructor'],
    [
      "Cannot destructure property 'id' of 'r' as it is undefined.",
      "Cannot destructure property 'id' of '<var>' as it is undefined.",
    ],
    [
      "undefined is not an object (evaluating 'e.items.map')",
      "undefined is not an object (evaluating '<var>.items.map')",
    ],
    [
      'can\'t access property "code", e.coupon is undefined',
      'can\'t access property "code", <var>.coupon is undefined',
    ],
  ])('%s', (message, expected) => {
    expect(withoutMinifiedNames(message)).toBe(expected)
  })

  it('gives two builds of the same bug the same text', () => {
    expect(withoutMinifiedNames('e.items.map is not a function')).toBe(
      withoutMinifiedNames('r.items.map is not a function'),
    )
  })

  it.each([
    "Cannot read properties of undefined (reading 'code')",
    'this.handler is not a function',
    'window.analytics is not a function',
    'Payment declined',
    'Order <n> failed',
    '(intermediate value) is not iterable',
    '',
  ])('keeps %j', (message) => {
    expect(withoutMinifiedNames(message)).toBe(message)
  })

  it('reads a long hostile message in one pass', () => {
    const message = `${'a.'.repeat(200_000)}b is not a function`
    expect(withoutMinifiedNames(message)).toBe(`<var>.${'a.'.repeat(199_999)}b is not a function`)
  })
})
