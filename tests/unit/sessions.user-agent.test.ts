import { describe, expect, it } from 'vitest'
import { describeUserAgent, USER_AGENT_PARSE_MAX } from '@/lib/sessions/user-agent'

describe('describeUserAgent', () => {
  it.each([
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      'Chrome 131 on macOS',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Microsoft Edge 131 on Windows 10',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
      'Safari 17 on iOS 17',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox 133 on Linux'],
    ['Mozilla/5.0 Chrome/131.0', 'Chrome 131'],
  ])('reads %s as %s', (ua, expected) => {
    expect(describeUserAgent(ua)).toBe(expected)
  })

  it('answers null for no user agent or an unrecognisable one', () => {
    expect(describeUserAgent(null)).toBeNull()
    expect(describeUserAgent('   ')).toBeNull()
    expect(describeUserAgent('x'.repeat(40))).toBeNull()
  })

  it('parses only the first characters of a hostile, huge value', () => {
    const huge = `Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0 ${'('.repeat(1_000_000)}`
    expect(huge.length).toBeGreaterThan(USER_AGENT_PARSE_MAX)
    expect(describeUserAgent(huge)).toBe('Chrome 156 on Linux')
  })
})
