import { describe, expect, it } from 'vitest'
import {
  assertValidBlobKey,
  assertValidBlobPrefix,
  InvalidBlobKeyError,
  isValidBlobKey,
  MAX_KEY_LENGTH,
  MAX_SEGMENT_LENGTH,
} from '@/lib/storage/keys'

describe('blob key validation', () => {
  it.each([
    'org/0b6c1f4e-6f0e-4d6a-9a59-5e0b1b8d2c11/sessions/s_123/00000001.json',
    'a',
    'a/b/c',
    'A-Z_0.9/file.name.with.dots',
    'x'.repeat(MAX_SEGMENT_LENGTH),
    Array.from({ length: 95 }, () => 'abcdefghi').join('/'), // 949 characters
  ])('accepts %j', (key) => {
    expect(isValidBlobKey(key)).toBe(true)
    expect(() => assertValidBlobKey(key)).not.toThrow()
  })

  it.each([
    ['', 'empty'],
    ['../x', 'parent segment'],
    ['a/../../x', 'parent segment in the middle'],
    ['a/..', 'trailing parent segment'],
    ['./a', 'current-directory segment'],
    ['a/./b', 'current-directory segment in the middle'],
    ['/etc/passwd', 'absolute'],
    ['a//b', 'empty segment'],
    ['a/', 'trailing slash'],
    ['a\\b', 'backslash'],
    ['..\\x', 'backslash traversal'],
    ['a\0b', 'NUL'],
    ['a/b\0', 'trailing NUL'],
    ['.hidden', 'leading dot (reserved for temporary files)'],
    ['a/.tmp-123', 'leading dot in a later segment'],
    ['a b', 'space'],
    ['a?b', 'query character'],
    ['a#b', 'fragment character'],
    ['a%2e%2e/b', 'percent-encoding'],
    ['C:/x', 'drive letter'],
    ['é', 'non-ASCII'],
    ['x'.repeat(MAX_SEGMENT_LENGTH + 1), 'segment too long'],
    [`${'abcdefghi/'.repeat(95)}x`, 'key too long'],
  ])('rejects %j (%s)', (key) => {
    expect(isValidBlobKey(key)).toBe(false)
    expect(() => assertValidBlobKey(key)).toThrow(InvalidBlobKeyError)
  })

  it('rejects values that are not strings', () => {
    expect(isValidBlobKey(undefined)).toBe(false)
    expect(isValidBlobKey(42)).toBe(false)
  })

  it('names the key and the reason in the error', () => {
    try {
      assertValidBlobKey('a\0b')
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidBlobKeyError)
      const invalid = error as InvalidBlobKeyError
      expect(invalid.name).toBe('InvalidBlobKeyError')
      expect(invalid.key).toBe('a\0b')
      expect(invalid.reason).toMatch(/NUL/)
      expect(invalid.message).toContain('"a\\u0000b"')
    }
  })

  it('keeps the message short for huge keys', () => {
    const huge = 'x'.repeat(100_000)
    expect(() => assertValidBlobKey(huge)).toThrow(InvalidBlobKeyError)
    try {
      assertValidBlobKey(huge)
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(300)
    }
  })

  it('exposes the length limits', () => {
    expect(MAX_KEY_LENGTH).toBe(950)
    expect(MAX_SEGMENT_LENGTH).toBe(255)
  })
})

describe('blob prefix validation', () => {
  it.each(['', 'org', 'org/', 'org/1/sessions/s', 'org/1/sessions/'])('accepts %j', (prefix) => {
    expect(() => assertValidBlobPrefix(prefix)).not.toThrow()
  })

  it.each(['/', '/etc', '../', 'a/../', 'a//', 'a\\', 'a\0', '.', 'a/.'])('rejects %j', (prefix) => {
    expect(() => assertValidBlobPrefix(prefix)).toThrow(InvalidBlobKeyError)
  })
})
