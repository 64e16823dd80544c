import { describe, expect, it } from 'vitest'
import { isAllowedRedirectUri, matchRedirectUri } from '@/lib/oauth/redirect-uri'

const config = {
  hostedRedirectOrigins: ['https://claude.ai', 'https://claude.com', 'https://chatgpt.com'],
  extraRedirectUris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
}

describe('RFC 7591 §2 redirect_uris: the allowlist (docs/design/oauth-mcp.md decision 5)', () => {
  it.each([
    'https://claude.ai/api/mcp/auth_callback',
    'https://claude.com/api/mcp/auth_callback',
    'https://chatgpt.com/connector/oauth/abc123',
    'https://claude.ai:443/any/path?x=1',
    'http://127.0.0.1:33418/',
    'http://127.0.0.1/callback',
    'http://[::1]:8080/cb',
    'http://localhost:3000/oauth/callback',
    'cursor://anysphere.cursor-mcp/oauth/callback',
  ])('allows %s', (uri) => expect(isAllowedRedirectUri(uri, config)).toBe(true))

  it.each([
    ['another https origin', 'https://evil.example/callback'],
    ['a look-alike host', 'https://claude.ai.evil.example/cb'],
    ['http on a hosted origin', 'http://claude.ai/api/mcp/auth_callback'],
    ['a hosted origin on another port', 'https://claude.ai:8443/cb'],
    ['https on loopback', 'https://127.0.0.1:3000/cb'],
    ['a non-loopback http host', 'http://192.168.1.10:3000/cb'],
    ['a private-use scheme not configured', 'cursor://other/oauth/callback'],
    ['credentials', 'http://user:pass@127.0.0.1:3000/cb'],
    ['a user name', 'https://user@claude.ai/cb'],
    ['an empty user part', 'https://@claude.ai/cb'],
    ['a fragment', 'http://localhost:3000/cb#frag'],
    ['an empty fragment', 'https://claude.ai/cb#'],
    ['a relative URI', '/callback'],
    ['not a URI', 'not a uri'],
    ['javascript:', 'javascript:alert(1)'],
    ['a data URI', 'data:text/html,hi'],
    ['a too long URI', `http://localhost/${'a'.repeat(2100)}`],
  ])('rejects %s', (_name, uri) => expect(isAllowedRedirectUri(uri, config)).toBe(false))
})

describe('RFC 6749 §3.1.2.3 / RFC 8252 §7.3: matching at authorize (docs/design/oauth-mcp.md decision 6)', () => {
  const registered = ['http://127.0.0.1:7777/callback', 'https://claude.ai/api/mcp/auth_callback']

  it('matches the exact registered string', () => {
    expect(matchRedirectUri('https://claude.ai/api/mcp/auth_callback', registered)).toBe(
      'https://claude.ai/api/mcp/auth_callback',
    )
  })

  it('lets the port of a loopback IP redirect differ, and nothing else', () => {
    expect(matchRedirectUri('http://127.0.0.1:5555/callback', registered)).toBe(
      'http://127.0.0.1:5555/callback',
    )
    expect(matchRedirectUri('http://127.0.0.1/callback', registered)).toBe('http://127.0.0.1/callback')
    expect(matchRedirectUri('http://[::1]:9999/cb', ['http://[::1]:1234/cb'])).toBe('http://[::1]:9999/cb')
    expect(matchRedirectUri('http://127.0.0.1:5555/other', registered)).toBeNull()
    expect(matchRedirectUri('http://127.0.0.1:5555/callback?x=1', registered)).toBeNull()
    expect(matchRedirectUri('http://localhost:7777/callback', registered)).toBeNull()
    expect(matchRedirectUri('http://[::1]:7777/callback', registered)).toBeNull()
  })

  it('does not extend the port rule to localhost or https', () => {
    expect(matchRedirectUri('http://localhost:5/cb', ['http://localhost:4/cb'])).toBeNull()
    expect(matchRedirectUri('https://claude.ai:444/api/mcp/auth_callback', registered)).toBeNull()
  })

  it('is exact otherwise: no prefix, case or trailing-slash tolerance', () => {
    expect(matchRedirectUri('https://claude.ai/api/mcp/auth_callback/', registered)).toBeNull()
    expect(matchRedirectUri('https://claude.ai/api/mcp/auth_callback?x', registered)).toBeNull()
    expect(matchRedirectUri('https://CLAUDE.ai/api/mcp/auth_callback', registered)).toBeNull()
    expect(matchRedirectUri('http://127.0.0.1:5555/callback#x', registered)).toBeNull()
  })
})
