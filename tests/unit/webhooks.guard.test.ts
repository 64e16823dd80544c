import { describe, expect, it } from 'vitest'
import { envelopeBody, truncateDescription } from '@/lib/webhooks/events'
import { labelFor } from '@/lib/webhooks/labels'
import { decryptSecret, encryptSecret, generateWebhookSecret, secretPrefix } from '@/lib/webhooks/secrets'
import { signatureValue } from '@/lib/webhooks/signature'
import { addressRefusal, checkUrlShape, UnsafeUrlError, vetTarget } from '@/lib/webhooks/url-guard'
import { verifyWebhookSignature } from '@/lib/webhooks/verify'
import { fakeResolver } from '../helpers/webhooks'

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['2002:7f00:1::', '6to4'],
    ['64:ff9b::a00:1', 'rfc6052'],
    // IPv6 forms that embed an IPv4 address
    ['::7f00:1', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['64:ff9b::808:808', 'rfc6052'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2606:4700::5efe:7f00:1', 'isatap'],
    ['2606:4700::200:5efe:a9fe:a9fe', 'isatap'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRefusal(address)).toContain(range)
  })

  it('accepts public unicast, and opens only private ranges with allowPrivate', () => {
    expect(addressRefusal('93.184.216.34')).toBeNull()
    expect(addressRefusal('2606:4700::1111')).toBeNull()
    expect(addressRefusal('10.0.0.1', { allowPrivate: true })).toBeNull()
    expect(addressRefusal('::ffff:127.0.0.1', { allowPrivate: true })).toBeNull()
    expect(addressRefusal('224.0.0.1', { allowPrivate: true })).not.toBeNull()
    expect(addressRefusal('0.0.0.0', { allowPrivate: true })).not.toBeNull()
    expect(addressRefusal('127.0.0.1', { allowCidrs: ['127.0.0.1/32'] })).toBeNull()
    expect(addressRefusal('127.0.0.2', { allowCidrs: ['127.0.0.1/32'] })).not.toBeNull()
  })

  it('checks the IPv4 address inside mapped and ISATAP forms; refuses the other embeddings even when private targets are open', () => {
    expect(addressRefusal('::ffff:93.184.216.34')).toBeNull()
    expect(addressRefusal('2606:4700::200:5efe:5db8:d822')).toBeNull()
    expect(addressRefusal('2606:4700::5efe:a00:1', { allowPrivate: true })).toBeNull()
    expect(addressRefusal('::7f00:1', { allowPrivate: true })).toContain('ipv4Compatible')
    expect(addressRefusal('::7f00:1', { allowCidrs: ['127.0.0.1/32'] })).toContain('ipv4Compatible')
    expect(addressRefusal('64:ff9b::7f00:1', { allowPrivate: true })).toContain('rfc6052')
    expect(addressRefusal('2002:7f00:1::', { allowPrivate: true })).toContain('6to4')
    // ::1 and :: are themselves, not IPv4-compatible
    expect(addressRefusal('::1', { allowPrivate: true })).toBeNull()
    expect(addressRefusal('::', { allowPrivate: true })).toContain('unspecified')
  })
})

describe('URL shape', () => {
  it.each([
    ['http://example.com/hook', 'https'],
    ['https://user:pw@example.com/', 'credentials'],
    ['https://user@example.com/', 'credentials'],
    ['ftp://example.com/', 'https'],
    ['not a url', 'valid'],
    ...[22, 25, 3306, 5432, 6379, 9200, 9300, 11211, 2375, 2376, 27017].map((p) => [
      `https://example.com:${p}/`,
      `port ${p}`,
    ]),
  ])('refuses %s', (url, reason) => {
    expect(() => checkUrlShape(url)).toThrow(UnsafeUrlError)
    expect(() => checkUrlShape(url)).toThrow(reason)
  })

  it('accepts https with the default or an ordinary port', () => {
    expect(checkUrlShape('https://example.com/hook').port).toBe(443)
    expect(checkUrlShape('https://example.com:8443/hook').port).toBe(8443)
  })

  it('refuses at once IPv6 literals that embed IPv4 and that no policy opens; private ones wait for delivery', () => {
    for (const url of [
      'https://[::7f00:1]/',
      'https://[::127.0.0.1]/',
      'https://[64:ff9b::a00:1]/',
      'https://[2001::1]/',
    ])
      expect(() => checkUrlShape(url), url).toThrow(UnsafeUrlError)
    expect(() => checkUrlShape('https://[::7f00:1]/')).toThrow('ipv4Compatible')
    expect(checkUrlShape('https://[::1]/').hostname).toBe('::1')
    expect(checkUrlShape('https://[::ffff:7f00:1]/').hostname).toBe('::ffff:7f00:1')
    expect(checkUrlShape('https://[2606:4700::1111]/').hostname).toBe('2606:4700::1111')
  })
})

describe('vetTarget', () => {
  const resolver = fakeResolver({
    'public.test': ['93.184.216.34'],
    'internal.test': ['10.0.0.7'],
    'mixed.test': ['93.184.216.34', '169.254.169.254'],
    'mapped.test': ['::ffff:192.168.0.1'],
  })
  it('resolves and keeps public answers', async () => {
    const target = await vetTarget('https://public.test/x', resolver, {})
    expect(target.addresses).toEqual([{ address: '93.184.216.34', family: 4 }])
  })
  it.each([
    'https://internal.test/',
    'https://mixed.test/',
    'https://mapped.test/',
    'https://127.0.0.1/',
    'https://0x7f.1/',
    'https://2130706433/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[::7f00:1]/',
    'https://[::127.0.0.1]/',
    'https://[::a9fe:a9fe]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[2002:7f00:1::1]/',
    'https://169.254.169.254/latest/meta-data',
  ])('refuses %s', async (url) => {
    await expect(vetTarget(url, resolver, {})).rejects.toBeInstanceOf(UnsafeUrlError)
  })
})

describe('labels', () => {
  it('maps errors by name first, then code', () => {
    expect(labelFor(new DOMException('t', 'TimeoutError'))).toBe('timeout')
    expect(labelFor(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).toBe('timeout')
    expect(labelFor(Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }))).toBe(
      'tls_error',
    )
    expect(labelFor(Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe('tls_error')
    expect(labelFor(new Error('y', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }))).toBe(
      'network_error',
    )
    expect(labelFor(new UnsafeUrlError('x'))).toBe('url_unsafe')
  })
})

describe('secrets, signature, envelope', () => {
  it('encrypts secrets with a random IV and detects tampering', () => {
    const secret = generateWebhookSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(secretPrefix(secret)).toBe(`${secret.slice(0, 12)}…`)
    const a = encryptSecret(secret)
    expect(a).not.toBe(encryptSecret(secret))
    expect(a).not.toContain(secret.slice(6))
    expect(decryptSecret(a)).toBe(secret)
    const parts = a.split('.')
    parts[3] = Buffer.from('x'.repeat(20)).toString('base64url')
    expect(() => decryptSecret(parts.join('.'))).toThrow()
  })

  it('verifies its own signatures within 5 minutes, in both directions', () => {
    const secret = 'whsec_test'
    const body = '{"a":1}'
    const now = 1_700_000_000
    const header = signatureValue(secret, now, body)
    expect(verifyWebhookSignature(body, header, secret, { now: now + 300 }).timestamp).toBe(now)
    expect(() => verifyWebhookSignature(body, header, secret, { now: now + 301 })).toThrow('tolerance')
    expect(() => verifyWebhookSignature(body, header, secret, { now: now - 301 })).toThrow('tolerance')
    expect(() => verifyWebhookSignature(`${body} `, header, secret, { now })).toThrow('does not match')
    expect(() => verifyWebhookSignature(body, header, 'whsec_other', { now })).toThrow('does not match')
    const rotated = `${header},v1=${'0'.repeat(64)}`
    expect(verifyWebhookSignature(body, rotated, secret, { now }).timestamp).toBe(now)
  })

  it('truncates description to 1000 characters plus ...', () => {
    expect(truncateDescription('a'.repeat(1000))).toBe('a'.repeat(1000))
    expect(truncateDescription('a'.repeat(1001))).toBe(`${'a'.repeat(1000)}...`)
    expect(truncateDescription(null)).toBeNull()
    const body = JSON.parse(
      envelopeBody({
        event: 'issue.created',
        id: '00000000-0000-4000-8000-000000000000',
        occurredAt: new Date(0),
        data: {
          issueId: '9a7d0c1e-0000-4000-8000-000000000001',
          orgId: '9a7d0c1e-0000-4000-8000-000000000002',
          title: 'TypeError',
          description: 'b'.repeat(2000),
          status: 'unresolved',
          priority: 'high',
          previewUrl: null,
          aiVerified: null,
          sourceType: 'session_analysis',
        },
      }),
    )
    expect(body.data.description).toHaveLength(1003)
    expect(Object.keys(body)).toEqual(['event', 'id', 'occurredAt', 'data'])
  })
})
