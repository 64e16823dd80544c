import { describe, expect, it } from 'vitest'
import { hashToken } from '@/lib/credentials/tokens'
import { constantTimeEqual } from '@/lib/crypto/constant-time'

describe('constantTimeEqual', () => {
  it('is true for equal values only', () => {
    const hash = hashToken('svc_cs_secret')
    expect(constantTimeEqual(hash, hashToken('svc_cs_secret'))).toBe(true)
    expect(constantTimeEqual(hash, hashToken('svc_cs_secreT'))).toBe(false)
    expect(constantTimeEqual('', '')).toBe(true)
  })

  it('tells apart values that differ only in their last byte', () => {
    const a = `${'x'.repeat(63)}a`
    const b = `${'x'.repeat(63)}b`
    expect(constantTimeEqual(a, b)).toBe(false)
  })

  it('answers false instead of throwing when the lengths differ (timingSafeEqual would throw)', () => {
    expect(() => constantTimeEqual('abc', 'abcd')).not.toThrow()
    expect(constantTimeEqual('abc', 'abcd')).toBe(false)
    expect(constantTimeEqual('abcd', 'abc')).toBe(false)
    expect(constantTimeEqual('', 'a')).toBe(false)
    // A prefix of the expected value is not a match, whichever side is shorter.
    const mac = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
    expect(constantTimeEqual(mac.slice(0, 42), mac)).toBe(false)
  })

  it('compares bytes: a string equals a buffer holding its UTF-8 encoding', () => {
    expect(constantTimeEqual('café', Buffer.from('café', 'utf8'))).toBe(true)
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true)
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false)
    // No Unicode normalization: the composed and decomposed é are different secrets.
    expect(constantTimeEqual('\u00e9', 'e\u0301')).toBe(false)
  })
})
