import { describe, expect, it } from 'vitest'
import { authorizationResponseUrl } from '@/lib/oauth/authorization-response'
import type { AuthorizationRequest } from '@/lib/oauth/authorize-request'
import { createCsrfToken, verifyCsrfToken } from '@/lib/oauth/csrf'
import { InvalidTargetError } from '@/lib/oauth/errors'
import {
  authorizationServerMetadata,
  canonicalResource,
  isMetadataSuffix,
  issuer,
  resolveResource,
} from '@/lib/oauth/metadata'
import { formatScope, isSubset, isSupportedScope, parseScope } from '@/lib/oauth/scopes'

const config = { baseUrl: 'https://replay.example.com' }
const SECRET = 'unit-test-secret-unit-test-secret-0123456789'

describe('RFC 8414 / RFC 8707 values from BASE_URL', () => {
  it('uses one issuer string without a trailing slash', () => {
    expect(issuer({ baseUrl: 'https://replay.example.com/' })).toBe('https://replay.example.com')
    expect(authorizationServerMetadata(config).issuer).toBe('https://replay.example.com')
    expect(canonicalResource(config)).toBe('https://replay.example.com/api/mcp')
  })

  it('resolves resource: omitted → canonical, one trailing slash tolerated, else invalid_target', () => {
    expect(resolveResource([], config)).toBe('https://replay.example.com/api/mcp')
    expect(resolveResource(['https://replay.example.com/api/mcp/'], config)).toBe(
      'https://replay.example.com/api/mcp',
    )
    for (const bad of [
      ['https://replay.example.com/api/mcp//'],
      ['https://replay.example.com/'],
      ['https://evil.example/api/mcp'],
      ['https://replay.example.com/api/mcp', 'https://replay.example.com/api/mcp'],
    ])
      expect(() => resolveResource(bad, config)).toThrow(InvalidTargetError)
  })

  it('serves the metadata at the document and the path-inserted /api/mcp form only', () => {
    expect(isMetadataSuffix(undefined)).toBe(true)
    expect(isMetadataSuffix(['api', 'mcp'])).toBe(true)
    expect(isMetadataSuffix(['api'])).toBe(false)
    expect(isMetadataSuffix(['other'])).toBe(false)
  })
})

describe('RFC 6749 §3.3 scopes', () => {
  it('parses, spells one way and compares sets', () => {
    expect(parseScope(' write:issues  read:service read:service ')).toEqual(['write:issues', 'read:service'])
    expect(formatScope(['write:issues', 'read:service'])).toBe('read:service write:issues')
    expect(isSupportedScope(['read:service', 'write:issues'])).toBe(true)
    expect(isSupportedScope(['admin'])).toBe(false)
    expect(isSupportedScope([])).toBe(false)
    expect(isSubset(['read:service'], ['read:service', 'write:issues'])).toBe(true)
    expect(isSubset(['write:issues'], ['read:service'])).toBe(false)
  })
})

describe('RFC 6749 §4.1.2 / RFC 9207 authorization response', () => {
  it('adds code, state verbatim and iss to the redirect URI, keeping its query', () => {
    const state = `weird &=?#+ ${'s'.repeat(3000)} ünïcode`
    const url = new URL(
      authorizationResponseUrl(
        'https://claude.ai/cb?keep=1',
        'https://replay.example.com',
        { code: 'c' },
        state,
      ),
    )
    expect(url.searchParams.get('keep')).toBe('1')
    expect(url.searchParams.get('code')).toBe('c')
    expect(url.searchParams.get('state')).toBe(state)
    expect(url.searchParams.get('iss')).toBe('https://replay.example.com')
  })

  it('sends access_denied with state and iss, and no state when none was sent', () => {
    const url = new URL(
      authorizationResponseUrl('http://127.0.0.1:1/cb', 'https://i', { error: 'access_denied' }, undefined),
    )
    expect(url.searchParams.get('error')).toBe('access_denied')
    expect(url.searchParams.has('state')).toBe(false)
    expect(url.searchParams.get('iss')).toBe('https://i')
  })
})

describe('consent CSRF token (docs/design/oauth-mcp.md decision 13)', () => {
  const request = {
    client: { clientId: 'svc_client_x' },
    redirectUri: 'http://127.0.0.1:1/cb',
    codeChallenge: 'c'.repeat(43),
    scope: 'read:service',
    resource: 'https://replay.example.com/api/mcp',
    state: 's',
  } as AuthorizationRequest
  const now = 1_700_000_000_000

  it('is bound to the user and to every parameter of the request', () => {
    const token = createCsrfToken('user-1', request, now, SECRET)
    expect(verifyCsrfToken(token, 'user-1', request, now + 1000, SECRET)).toBe(true)
    expect(verifyCsrfToken(token, 'user-2', request, now, SECRET)).toBe(false)
    for (const change of [
      { state: 't' },
      { scope: 'read:service write:issues' },
      { redirectUri: 'http://127.0.0.1:2/cb' },
      { codeChallenge: 'd'.repeat(43) },
      { client: { clientId: 'svc_client_y' } },
    ])
      expect(
        verifyCsrfToken(token, 'user-1', { ...request, ...change } as AuthorizationRequest, now, SECRET),
      ).toBe(false)
    expect(verifyCsrfToken(token, 'user-1', request, now, 'another-secret-another-secret-another-1234')).toBe(
      false,
    )
  })

  it('expires after an hour and refuses malformed values', () => {
    const token = createCsrfToken('user-1', request, now, SECRET)
    expect(verifyCsrfToken(token, 'user-1', request, now + 3_601_000, SECRET)).toBe(false)
    expect(verifyCsrfToken('', 'user-1', request, now, SECRET)).toBe(false)
    expect(verifyCsrfToken(`${token}x`, 'user-1', request, now, SECRET)).toBe(false)
    expect(verifyCsrfToken(null, 'user-1', request, now, SECRET)).toBe(false)
  })
})
