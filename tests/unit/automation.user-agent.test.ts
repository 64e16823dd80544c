import { describe, expect, it } from 'vitest'
import { ReplayBatch } from '@/lib/ingest/schema'
import { batchAutomation } from '@/lib/ingest/session-automation'
import { classifyAutomation, USER_AGENT_CHECK_MAX, userAgentAutomation } from '@/sdk/src/automation'
import { makeBatch } from '../fixtures/replay-batch'

const PEOPLE = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  // A phone brand with "bot" in its name.
  'Mozilla/5.0 (Linux; Android 10; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
]
const AUTOMATED = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36 Chrome-Lighthouse',
]

describe('the automated user-agent check', () => {
  it('marks headless browsers and crawlers as bots and leaves people alone', () => {
    for (const ua of AUTOMATED) expect(userAgentAutomation(ua), ua).toBe('bot')
    for (const ua of PEOPLE) expect(userAgentAutomation(ua), ua).toBeNull()
    expect(userAgentAutomation(null)).toBeNull()
    expect(userAgentAutomation('')).toBeNull()
  })

  it('reads only the first kilobyte of a 1 MB hostile user agent', () => {
    const padding = 'Mozilla/5.0 '.repeat(Math.ceil(1_048_576 / 12))
    expect(padding.length).toBeGreaterThan(1_000_000)
    // A marker past the bound is not seen: a sender can only hide its own traffic that way.
    expect(userAgentAutomation(`${padding}Googlebot`)).toBeNull()
    expect(userAgentAutomation(`HeadlessChrome ${padding}`)).toBe('bot')
    expect(userAgentAutomation(`${'x'.repeat(USER_AGENT_CHECK_MAX - 9)}googlebot`)).toBe('bot')
  })

  it("puts a reproduction's own marker first, then the WebDriver flag, then the user agent", () => {
    const headless = AUTOMATED[0]
    expect(classifyAutomation({ marker: 'reproduction', webdriver: true, userAgent: headless })).toBe(
      'reproduction',
    )
    expect(classifyAutomation({ marker: undefined, webdriver: true, userAgent: headless })).toBe('webdriver')
    expect(classifyAutomation({ marker: 'other', webdriver: false, userAgent: headless })).toBe('bot')
    expect(classifyAutomation({ marker: true, webdriver: 'true', userAgent: PEOPLE[0] })).toBeNull()
  })

  it("classifies a batch by its field, else its user agent, else the request's", () => {
    const base = makeBatch({ sessionId: 's', sequence: 0, events: 1 })
    const batch = (metadata: Record<string, unknown>) =>
      ReplayBatch.parse({ ...base, metadata: { ...base.metadata, ...metadata } })
    expect(batchAutomation(batch({ automation: 'reproduction', userAgent: AUTOMATED[2] }), null)).toBe(
      'reproduction',
    )
    expect(batchAutomation(batch({ userAgent: AUTOMATED[2] }), PEOPLE[0]!)).toBe('bot')
    expect(batchAutomation(batch({ userAgent: null }), AUTOMATED[0]!)).toBe('bot')
    expect(batchAutomation(batch({ userAgent: PEOPLE[0] }), PEOPLE[1]!)).toBeNull()
    expect(ReplayBatch.safeParse({ ...base, metadata: { automation: 'robot' } }).success).toBe(false)
  })
})
