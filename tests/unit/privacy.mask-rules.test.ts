import { describe, expect, it } from 'vitest'
import { InvalidInputError } from '@/lib/errors'
import {
  describeMaskPattern,
  forgetLiteral,
  maskPatternsIn,
  parseMaskPattern,
} from '@/lib/privacy/mask-patterns'
import { compileMaskRules, MAX_MASK_SELECTORS, parseMaskRuleInput } from '@/lib/privacy/mask-rules'
import { compileSelectors, enterElement, parseMaskSelector } from '@/lib/privacy/mask-selectors'

/** The owner-typed mask syntax (docs/privacy.md#re-masking): parsing, bounds and linear-time matching. */

const patterns = (...typed: string[]) => typed.map(parseMaskPattern)

describe('patterns', () => {
  it('masks literals case-sensitively, or ignoring ASCII case with ~', () => {
    expect(maskPatternsIn('pw hunter2 HUNTER2', patterns('hunter2'))).toBe('pw ******* HUNTER2')
    expect(maskPatternsIn('pw hunter2 HUNTER2', patterns('~Hunter2'))).toBe('pw ******* *******')
    expect(maskPatternsIn('a @home b', patterns('\\@home'))).toBe('a ***** b')
    expect(maskPatternsIn('nothing here', patterns('hunter2'))).toBe('nothing here')
  })

  it('finds e-mail addresses and Luhn-valid card numbers, and leaves look-alikes', () => {
    const built = patterns('@email', '@card-number')
    expect(maskPatternsIn('mail ada.l+x@example.co.uk now', built)).toBe(`mail ${'*'.repeat(21)} now`)
    expect(maskPatternsIn('user@localhost and a@b.c', built)).toBe('user@localhost and a@b.c')
    expect(maskPatternsIn('card 4111 1111 1111 1111.', built)).toBe('card *******************.')
    expect(maskPatternsIn('card 4111-1111-1111-1111', built)).toBe('card *******************')
    expect(maskPatternsIn('order 4111111111111112', built)).toBe('order 4111111111111112')
  })

  it('refuses unknown built-ins, short literals, control characters and long patterns', () => {
    expect(() => parseMaskPattern('@password')).toThrow(/Unknown built-in/)
    expect(() => parseMaskPattern('ab')).toThrow(/at least 3/)
    expect(() => parseMaskPattern('a\u0000bcd')).toThrow(/control/)
    expect(() => parseMaskPattern('x'.repeat(201))).toThrow(/at most 200/)
  })

  it('names literals by their length only', () => {
    expect(describeMaskPattern('hunter2')).toBe('(literal, 7 characters)')
    expect(describeMaskPattern('~Hunter2')).toBe('(literal, any case, 7 characters)')
    expect(describeMaskPattern('@email')).toBe('@email')
    expect(describeMaskPattern(forgetLiteral('hunter2'))).toBe('(literal, 7 characters)')
    expect(forgetLiteral('hunter2')).not.toContain('hunter2')
  })

  it('scans hostile megabyte strings in linear time', () => {
    const built = patterns('@email', '@card-number', '~aaab', 'aaaaaaaaab')
    const hostile = [
      'a'.repeat(1_000_000),
      '@'.repeat(1_000_000),
      'a@'.repeat(500_000),
      `${'a'.repeat(500_000)}@${'b.'.repeat(250_000)}`,
      '4 '.repeat(500_000),
      '4'.repeat(1_000_000),
    ]
    for (const text of hostile) expect(maskPatternsIn(text, built).length).toBe(text.length)
  })
})

describe('selectors', () => {
  const el = (tag: string, attributes: Record<string, unknown> = {}) => ({ tag, attributes })

  it('parses the supported subset and refuses the rest with a 400 message', () => {
    expect(parseMaskSelector('form.login > input[type="password"], #card [data-private]')).toHaveLength(2)
    for (const bad of ['a:hover', 'a + b', 'a ~ b', '[href^=x]', 'a >', '', '::before', 'a,,b'])
      expect(() => parseMaskSelector(bad), bad).toThrow(/Selector/)
    expect(() => parseMaskSelector('a b c d e f g h i')).toThrow(/more than 8/)
  })

  it('matches tags, ids, classes, attributes and both combinators down a tree', () => {
    const compiled = compileSelectors(['form.login > input[type=password]', '#card span'])
    const form = enterElement(compiled, null, el('form', { class: 'x login' }))
    const input = enterElement(compiled, form.state, el('INPUT', { type: 'password' }))
    expect(input.matched).toBe(true)
    const div = enterElement(compiled, form.state, el('div'))
    expect(enterElement(compiled, div.state, el('input', { type: 'password' })).matched).toBe(false)
    const card = enterElement(compiled, null, el('section', { id: 'card' }))
    const deep = enterElement(compiled, enterElement(compiled, card.state, el('div')).state, el('span'))
    expect(deep.matched).toBe(true)
    expect(enterElement(compiled, null, el('span')).matched).toBe(false)
  })

  it('costs the same per node however deep the tree', () => {
    const compiled = compileSelectors(['div div div div div div div x'])
    let state = null
    for (let i = 0; i < 50_000; i++) state = enterElement(compiled, state, el('div')).state
    expect(enterElement(compiled, state, el('x')).matched).toBe(true)
  })
})

describe('rule input', () => {
  it('bounds counts and reports the bad rule', () => {
    expect(parseMaskRuleInput({ selectors: [' .a ', '.a'], patterns: ['hunter2'] })).toEqual({
      selectors: ['.a'],
      patterns: ['hunter2'],
    })
    expect(() => parseMaskRuleInput({ selectors: Array(MAX_MASK_SELECTORS + 1).fill('a') })).toThrow(
      InvalidInputError,
    )
    expect(() => parseMaskRuleInput({ selectors: 'a' })).toThrow(/array of strings/)
    expect(() => parseMaskRuleInput({ selectors: [Array(41).fill('a').join(',')] })).toThrow(/At most 40/)
    expect(() => parseMaskRuleInput({ selectors: ['a:not(b)'] })).toThrow(InvalidInputError)
  })

  it('compiles stored rules, skipping any that no longer parse', () => {
    const rules = compileMaskRules({ selectors: ['a:hover', '.ok'], patterns: ['x', 'hunter2'] })
    expect(rules.selectors?.complexes).toHaveLength(1)
    expect(rules.patterns).toHaveLength(1)
  })
})
