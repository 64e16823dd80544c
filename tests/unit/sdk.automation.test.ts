import { describe, expect, it } from 'vitest'
import { ReplayBatch } from '@/lib/ingest/schema'
import { AUTOMATION_GLOBAL, detectAutomation } from '@/sdk/src/automation'
import { type BatchEnvelope, buildBody } from '@/sdk/src/batch'

const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'

/** The parts of a window the recorder reads to decide. */
function page(options: {
  marker?: unknown
  webdriver?: boolean
  userAgent?: string
  throws?: boolean
}): Window {
  const navigator = options.throws
    ? Object.defineProperty({}, 'webdriver', {
        get() {
          throw new Error('denied')
        },
      })
    : { webdriver: options.webdriver ?? false, userAgent: options.userAgent ?? CHROME }
  return { navigator, [AUTOMATION_GLOBAL]: options.marker } as unknown as Window
}

const envelope = (automation?: BatchEnvelope['metadata']['automation']): BatchEnvelope => ({
  session: { id: 's', windowId: 'w', startedAt: 1, lastActivityAt: 2, url: 'https://shop.example/' },
  user: { anonymousId: 'a', id: null, properties: null },
  page: { url: 'https://shop.example/', referrer: null, viewport: null },
  metadata: { userAgent: CHROME, language: 'en', ...(automation ? { automation } : {}) },
})

describe("the recorder's automation check", () => {
  it('tells a reproduction run, a WebDriver browser, a bot and a person apart', () => {
    expect(detectAutomation(page({ marker: 'reproduction', webdriver: true }))).toBe('reproduction')
    expect(detectAutomation(page({ webdriver: true }))).toBe('webdriver')
    expect(detectAutomation(page({ userAgent: CHROME.replace('Chrome/', 'HeadlessChrome/') }))).toBe('bot')
    expect(detectAutomation(page({ userAgent: 'Mozilla/5.0 (compatible; bingbot/2.0)' }))).toBe('bot')
    expect(detectAutomation(page({}))).toBeNull()
    // Only our exact marker counts; a getter that throws is no signal.
    expect(detectAutomation(page({ marker: 'Reproduction' }))).toBeNull()
    expect(detectAutomation(page({ throws: true }))).toBeNull()
  })

  it('sends metadata.automation only when automated, in a body ingest accepts', () => {
    const events = ['{"type":4,"timestamp":1,"data":{}}']
    const person = JSON.parse(buildBody(envelope(), events, 0, 'normal'))
    expect(person.metadata).not.toHaveProperty('automation')
    const run = JSON.parse(buildBody(envelope('reproduction'), events, 0, 'normal'))
    expect(run.metadata.automation).toBe('reproduction')
    expect(ReplayBatch.parse(run).metadata?.automation).toBe('reproduction')
    expect(ReplayBatch.parse(person).metadata?.automation).toBeUndefined()
  })
})
