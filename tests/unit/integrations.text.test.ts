import { describe, expect, it } from 'vitest'
import { parseRepository } from '@/lib/integrations/github-client'
import { codeBlock, plainTitle } from '@/lib/integrations/markdown'

describe('codeBlock', () => {
  it('uses a fixed ``` fence and turns backticks inside into look-alikes, so the text cannot close it', () => {
    const block = codeBlock('a ```` b\n````\n```\n[x](https://evil.example)', 1000)
    expect(block.startsWith('```text\n')).toBe(true)
    expect(block.endsWith('\n```')).toBe(true)
    const inside = block.slice('```text\n'.length, -'\n```'.length)
    expect(inside).not.toContain('`')
    expect(inside).toContain('a \u02CB\u02CB\u02CB\u02CB b')
  })

  it('drops bidi overrides and zero-width characters from bodies and titles', () => {
    const hostile = 'pay\u202Eemag\u202C\u2066x\u2069 ad\u200Bmin\u200C\u200D\uFEFF!'
    expect(codeBlock(hostile, 1000)).toBe('```text\npayemagx admin!\n```')
    expect(plainTitle(hostile, 256)).toBe('payemagx admin!')
  })

  it('stays linear on long hostile input', () => {
    const block = codeBlock('`\u202E'.repeat(200_000), 2_000)
    expect(block.length).toBeLessThan(2_100)
  })

  it('cuts long text and blanks control characters', () => {
    const block = codeBlock(`x\u0000y\u001b[31m${'z'.repeat(5000)}`, 100)
    expect(block.length).toBeLessThan(120)
    expect(block.includes('\u0000') || block.includes('\u001b')).toBe(false)
  })
})

describe('plainTitle', () => {
  it('is one line of at most the given length, with a fallback for an empty title', () => {
    expect(plainTitle('a\nb\r\n\tc', 256)).toBe('a b c')
    expect(plainTitle('x'.repeat(1000), 256).length).toBeLessThanOrEqual(256)
    expect(plainTitle('  \n ', 256)).toBe('Issue from a session replay')
  })
})

describe('parseRepository', () => {
  it('accepts owner/repo as GitHub spells them and refuses anything else', () => {
    expect(parseRepository('acme/shop.web_2-x')).toEqual({ owner: 'acme', repo: 'shop.web_2-x' })
    for (const bad of [
      'acme',
      '/shop',
      'acme/',
      'a/b/c',
      'ac me/shop',
      'acme/..',
      `${'a'.repeat(40)}/x`,
      'acme/sh?p',
    ])
      expect(parseRepository(bad), bad).toBeNull()
  })

  it('stays linear on long hostile input', () => {
    expect(parseRepository(`${'a'.repeat(100_000)}/${'-'.repeat(100_000)}!`)).toBeNull()
  })
})
