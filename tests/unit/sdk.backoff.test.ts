import { describe, expect, it } from 'vitest'
import { classifyStatus, parseRetryAfter, retryDelay } from '@/sdk/src/backoff'

describe('retry timing', () => {
  it('grows exponentially from 1 s with jitter in the upper half, capped at 60 s', () => {
    expect(retryDelay(1, null, () => 0)).toBe(500)
    expect(retryDelay(1, null, () => 1)).toBe(1000)
    expect(retryDelay(3, null, () => 0)).toBe(2000)
    expect(retryDelay(3, null, () => 1)).toBe(4000)
    expect(retryDelay(20, null, () => 1)).toBe(60_000)
    expect(retryDelay(20, null, () => 0)).toBe(30_000)
  })

  it('waits at least Retry-After, plus at most 10 %', () => {
    expect(retryDelay(1, 5000, () => 0)).toBe(5000)
    expect(retryDelay(1, 5000, () => 1)).toBe(5500)
  })

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter('3', now)).toBe(3000)
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000)
    expect(parseRetryAfter('soon', now)).toBeNull()
    expect(parseRetryAfter(null, now)).toBeNull()
  })

  it('retries 408, 429 and 5xx, stops on 401 and drops other 4xx', () => {
    expect(classifyStatus(200)).toBe('delivered')
    expect(classifyStatus(429)).toBe('retry')
    expect(classifyStatus(503)).toBe('retry')
    expect(classifyStatus(408)).toBe('retry')
    expect(classifyStatus(401)).toBe('unauthorized')
    expect(classifyStatus(400)).toBe('drop')
    expect(classifyStatus(413)).toBe('drop')
  })
})
