import { describe, expect, it } from 'vitest'
import { isValidCodeChallenge, s256, verifyCodeVerifier } from '@/lib/oauth/pkce'

describe('RFC 7636 PKCE S256', () => {
  it('computes the Appendix B example', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    )
  })

  it('verifies the matching verifier and refuses anything else', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
    expect(verifyCodeVerifier(verifier, challenge)).toBe(true)
    expect(verifyCodeVerifier(`${verifier}x`, challenge)).toBe(false)
    // `plain`: the challenge itself as verifier must not pass.
    expect(verifyCodeVerifier(challenge, challenge)).toBe(false)
    expect(verifyCodeVerifier('short', challenge)).toBe(false)
    expect(verifyCodeVerifier('a'.repeat(129), challenge)).toBe(false)
    expect(verifyCodeVerifier(undefined, challenge)).toBe(false)
  })

  it('accepts code_challenge of 43 to 128 base64url characters only', () => {
    expect(isValidCodeChallenge('a'.repeat(43))).toBe(true)
    expect(isValidCodeChallenge('A-_9'.repeat(32))).toBe(true)
    expect(isValidCodeChallenge('a'.repeat(42))).toBe(false)
    expect(isValidCodeChallenge('a'.repeat(129))).toBe(false)
    expect(isValidCodeChallenge(`${'a'.repeat(42)}=`)).toBe(false)
    expect(isValidCodeChallenge(`${'a'.repeat(42)}+`)).toBe(false)
    expect(isValidCodeChallenge(`${'a'.repeat(42)}.`)).toBe(false)
    expect(isValidCodeChallenge(undefined)).toBe(false)
  })
})
