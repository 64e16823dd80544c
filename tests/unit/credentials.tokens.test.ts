import { describe, expect, it } from 'vitest'
import { safeCallbackPath } from '@/lib/auth/callback-url'
import { displayPrefix, generateToken, hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { hashPassword, verifyPassword } from '@/lib/users/password'

describe('tokens', () => {
  it('carries its prefix and 256 random bits', () => {
    for (const prefix of Object.values(TOKEN_PREFIXES)) {
      const token = generateToken(prefix)
      expect(token.startsWith(prefix)).toBe(true)
      expect(token.slice(prefix.length)).toMatch(/^[A-Za-z0-9_-]{43}$/)
    }
    expect(generateToken('svc_api_')).not.toBe(generateToken('svc_api_'))
  })

  it('hashes with SHA-256 hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })

  it('shows only the prefix and six characters', () => {
    expect(displayPrefix('svc_api_ABCDEFGHIJKLMNOP', 'svc_api_')).toBe('svc_api_ABCDEF…')
    expect(displayPrefix('svc_pk_ABCDEFGHIJ', 'svc_pk_')).toBe('svc_pk_ABCDEF…')
    // an underscore in the random part is not mistaken for the end of the prefix
    expect(displayPrefix('svc_pk_ab_cdefgh', 'svc_pk_')).toBe('svc_pk_ab_cde…')
    expect(displayPrefix('whsec_ABCDEFGHIJ', 'whsec_')).toBe('whsec_ABCDEF…')
  })
})

describe('passwords', () => {
  it('verify the right password only, with a per-hash salt', async () => {
    const a = await hashPassword('correct horse battery')
    const b = await hashPassword('correct horse battery')
    expect(a).not.toBe(b)
    expect(a).toMatch(/^scrypt\$32768\$8\$3\$/)
    expect(await verifyPassword('correct horse battery', a)).toBe(true)
    expect(await verifyPassword('correct horse batterY', a)).toBe(false)
    expect(await verifyPassword('anything', 'garbage')).toBe(false)
  })
})

describe('callback URLs after sign-in', () => {
  it.each([
    ['/issues?status=resolved', '/issues?status=resolved'],
    ['/oauth/authorize?client_id=x&state=y', '/oauth/authorize?client_id=x&state=y'],
    ['https://evil.example/', '/'],
    ['//evil.example/x', '/'],
    ['/\\evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['/ok\r\nSet-Cookie: x=1', '/'],
    ['', '/'],
    [undefined, '/'],
  ])('%s → %s', (input, expected) => {
    expect(safeCallbackPath(input)).toBe(expected)
  })
})
