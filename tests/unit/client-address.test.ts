import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig, setConfigForTests } from '@/lib/config'
import {
  type ClientAddressSources,
  clientAddress,
  normalizeAddress,
  resolveClientAddress,
  SHARED_ADDRESS,
  SOCKET_ADDRESS_HEADER,
} from '@/lib/ratelimit/client-address'
import { FRONT_SERVER_MARKER, SOCKET_ADDRESS_HEADER as SERVER_HEADER } from '../../server/front.mjs'
import { captureLogs } from '../helpers/logs'

const direct: ClientAddressSources = { trustedProxyHops: 0, vercel: false, frontServer: false }
const front: ClientAddressSources = { ...direct, frontServer: true }
const hops = (n: number): ClientAddressSources => ({ ...direct, trustedProxyHops: n })
const resolve = (headers: Record<string, string>, sources: ClientAddressSources) =>
  resolveClientAddress(new Headers(headers), sources)

describe('resolveClientAddress', () => {
  it('behind our server takes the socket address it stamped, ignoring every client header', () => {
    const headers = {
      [SOCKET_ADDRESS_HEADER]: '203.0.113.7',
      'x-forwarded-for': '1.1.1.1',
      'x-real-ip': '2.2.2.2',
    }
    expect(resolve(headers, front)).toBe('203.0.113.7')
    expect(SERVER_HEADER).toBe(SOCKET_ADDRESS_HEADER)
  })

  it('without our server and without a trusted proxy believes no header at all', () => {
    const headers = {
      [SOCKET_ADDRESS_HEADER]: '203.0.113.7',
      'x-forwarded-for': '1.1.1.1',
      'x-real-ip': '2.2.2.2',
    }
    expect(resolve(headers, direct)).toBeUndefined()
  })

  it('with TRUSTED_PROXY_HOPS=1 takes the rightmost X-Forwarded-For entry (what the proxy appended)', () => {
    expect(resolve({ 'x-forwarded-for': '6.6.6.6, 7.7.7.7,203.0.113.9' }, hops(1))).toBe('203.0.113.9')
    expect(resolve({ 'x-forwarded-for': '203.0.113.9', 'x-real-ip': '6.6.6.6' }, hops(1))).toBe('203.0.113.9')
  })

  it('with TRUSTED_PROXY_HOPS=2 takes the second entry from the right', () => {
    expect(resolve({ 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.0.0.2' }, hops(2))).toBe('203.0.113.9')
  })

  it('with fewer entries than hops takes the leftmost, and with none the socket (behind our server) or nothing', () => {
    expect(resolve({ 'x-forwarded-for': '203.0.113.9' }, hops(2))).toBe('203.0.113.9')
    expect(resolve({ 'x-forwarded-for': ' , ' }, { ...hops(1), frontServer: true })).toBeUndefined()
    expect(resolve({ [SOCKET_ADDRESS_HEADER]: '203.0.113.4' }, { ...hops(1), frontServer: true })).toBe(
      '203.0.113.4',
    )
    expect(resolve({ [SOCKET_ADDRESS_HEADER]: '203.0.113.4' }, hops(1))).toBeUndefined()
  })

  it('on Vercel takes the platform header, then x-real-ip, never X-Forwarded-For', () => {
    const vercel = { ...direct, vercel: true }
    expect(resolve({ 'x-vercel-forwarded-for': '203.0.113.1', 'x-real-ip': '6.6.6.6' }, vercel)).toBe(
      '203.0.113.1',
    )
    expect(resolve({ 'x-real-ip': '203.0.113.2', 'x-forwarded-for': '6.6.6.6' }, vercel)).toBe('203.0.113.2')
    expect(resolve({ 'x-forwarded-for': '6.6.6.6' }, vercel)).toBeUndefined()
  })

  it('normalises IPv6: IPv4-mapped to IPv4, compact lowercase, brackets and ports dropped', () => {
    expect(resolve({ [SOCKET_ADDRESS_HEADER]: '::ffff:127.0.0.1' }, front)).toBe('127.0.0.1')
    expect(resolve({ [SOCKET_ADDRESS_HEADER]: '2001:DB8:0:0:0:0:0:1' }, front)).toBe('2001:db8::1')
    expect(resolve({ 'x-forwarded-for': '[2001:db8::2]:443' }, hops(1))).toBe('2001:db8::2')
    expect(resolve({ 'x-forwarded-for': '203.0.113.3:51000' }, hops(1))).toBe('203.0.113.3')
    expect(normalizeAddress('::1')).toBe('::1')
  })

  it('refuses malformed values rather than keying a limit on them', () => {
    for (const bad of [
      'unknown',
      'not an ip',
      '999.1.1.1',
      '1.2.3',
      '[::1',
      'a'.repeat(500),
      '',
      '203.0.113.1 203.0.113.2',
    ])
      expect(normalizeAddress(bad), bad).toBeUndefined()
    expect(resolve({ 'x-forwarded-for': '1.1.1.1, garbage' }, hops(1))).toBeUndefined()
  })
})

describe('clientAddress', () => {
  afterEach(() => {
    setConfigForTests(undefined)
    delete (globalThis as Record<symbol, unknown>)[FRONT_SERVER_MARKER]
  })

  it('without the marker, a forged socket header lands in the shared bucket, with one warning that says how to fix it', () => {
    setConfigForTests(parseConfig({ ...process.env, TRUSTED_PROXY_HOPS: '0' }))
    const logs = captureLogs('warn')
    try {
      const forged = new Headers({ [SOCKET_ADDRESS_HEADER]: '203.0.113.7', 'x-forwarded-for': '203.0.113.8' })
      expect(clientAddress(forged)).toBe(SHARED_ADDRESS)
      expect(clientAddress(new Headers())).toBe(SHARED_ADDRESS)
    } finally {
      logs.restore()
    }
    const warnings = logs.records().filter((r) => r.msg.includes('client addresses are unknown'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.msg).toContain('TRUSTED_PROXY_HOPS')
    expect(warnings[0]!.msg).toContain('npm start')
  })

  it('with the marker our server sets, believes the stamped socket address', () => {
    setConfigForTests(parseConfig({ ...process.env, TRUSTED_PROXY_HOPS: '0' }))
    ;(globalThis as Record<symbol, unknown>)[FRONT_SERVER_MARKER] = true
    expect(clientAddress(new Headers({ [SOCKET_ADDRESS_HEADER]: '::ffff:198.51.100.4' }))).toBe(
      '198.51.100.4',
    )
  })

  it('reads TRUSTED_PROXY_HOPS and VERCEL from the configuration, and refuses bad values', () => {
    setConfigForTests(parseConfig({ ...process.env, TRUSTED_PROXY_HOPS: '2', VERCEL: '' }))
    expect(clientAddress(new Headers({ 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.0.0.2' }))).toBe(
      '203.0.113.9',
    )
    setConfigForTests(parseConfig({ ...process.env, VERCEL: '1' }))
    expect(clientAddress(new Headers({ 'x-vercel-forwarded-for': '203.0.113.10' }))).toBe('203.0.113.10')
    expect(() => parseConfig({ ...process.env, TRUSTED_PROXY_HOPS: '-1' })).toThrow(/TRUSTED_PROXY_HOPS/)
    expect(() => parseConfig({ ...process.env, TRUSTED_PROXY_HOPS: 'one' })).toThrow(/TRUSTED_PROXY_HOPS/)
  })
})
