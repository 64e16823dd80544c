import { eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replaySessions, shareLinks } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'
import { recorderBatches } from '../helpers/batches'
import { endingNow, loadRecording } from '../helpers/pipeline'
import { seedSession } from '../helpers/sessions'
import { type ServerOnPostgres, screenshot, startServerOnPostgres } from './dashboard'
import { launchChromium } from './server'

/**
 * A share link (docs/sharing.md) in Chromium, signed out: the replay plays on the page and in
 * the embed, the page names nothing else of the organization, and a revoked or expired link
 * shows the same clear page.
 */

const EMAIL = 'grace.share@example.com'
let running: ServerOnPostgres
let browser: Browser
let context: BrowserContext
let apiKey: string
let sessionId: string
let otherSessionId: string

beforeAll(async () => {
  running = await startServerOnPostgres()
  const db = running.database.db
  const organizationId = (await createOrganization(db, { name: 'Sharing Org' })).id
  apiKey = (await createKey(db, { organizationId, type: 'api', write: true })).key
  const ingestKey = (await createKey(db, { organizationId, type: 'ingest' })).key
  const externalId = `share-e2e-${Date.now()}`
  for (const batch of recorderBatches({
    sessionId: externalId,
    events: endingNow(loadRecording('multi-page').events),
    perBatch: 25,
    url: 'http://shop.example/',
    user: {
      anonymousId: 'anon-share-e2e',
      id: 'user-1906',
      properties: { email: EMAIL, name: 'Grace Share' },
    },
  })) {
    const response = await fetch(`${running.server.baseUrl}/api/sdk/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': ingestKey },
      body: JSON.stringify(batch),
    })
    expect(response.status, await response.clone().text()).toBe(200)
  }
  const [row] = await db.select().from(replaySessions).where(eq(replaySessions.externalId, externalId))
  sessionId = row!.id
  otherSessionId = (await seedSession(db, organizationId)).id
  browser = await launchChromium()
  // Never signed in: no cookies of the dashboard.
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(90_000)
})
afterAll(async () => {
  await context?.close()
  await browser?.close()
  await running?.stop()
})

async function createLink(): Promise<{ id: string; url: string; embedUrl: string }> {
  const response = await fetch(`${running.server.baseUrl}/api/v1/sessions/${sessionId}/share-links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: '{}',
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { shareLink: { id: string; url: string; embedUrl: string } }).shareLink
}

const player = (page: Page) => page.getByTestId('replay-player')

async function plays(page: Page) {
  await page.locator('[data-testid="replay-player"][data-state="ready"]').waitFor()
  await page
    .frameLocator('[data-testid="replay-player"] iframe')
    .locator('body')
    .waitFor({ state: 'attached' })
  await player(page).getByRole('button', { name: 'Play', exact: true }).click()
  await expect.poll(() => player(page).getAttribute('data-playing')).toBe('true')
  await expect.poll(async () => Number(await player(page).getAttribute('data-time'))).toBeGreaterThan(0)
}

async function unavailable(page: Page, url: string) {
  const response = await page.goto(url)
  expect(response?.status()).toBe(404)
  await page.getByTestId('share-unavailable').waitFor()
  expect(await page.getByTestId('replay-player').count()).toBe(0)
}

describe('a share link, signed out', () => {
  it('plays the replay on the page and in the embed, and the page names nothing else', async () => {
    const link = await createLink()
    const page = await context.newPage()
    const response = await page.goto(link.url)
    expect(response?.status()).toBe(200)
    await plays(page)
    // No dashboard around it: no navigation, no way into the organization.
    expect(await page.locator('a[href^="/sessions"], a[href^="/issues"], a[href="/settings"]').count()).toBe(
      0,
    )
    await screenshot(page, 'share-link')

    const html = await (await fetch(link.url)).text()
    for (const secret of [
      EMAIL,
      'Grace Share',
      'user-1906',
      'anon-share-e2e',
      'Sharing Org',
      sessionId,
      otherSessionId,
    ])
      expect(html).not.toContain(secret)
    const head = await fetch(link.url)
    expect(head.headers.get('referrer-policy')).toBe('no-referrer')
    expect(head.headers.get('x-robots-tag')).toContain('noindex')
    expect(head.headers.get('cache-control')).toContain('no-store')

    const embed = await context.newPage()
    await embed.goto(link.embedUrl)
    await plays(embed)
    await embed.close()

    const revoked = await fetch(`${running.server.baseUrl}/api/v1/share-links/${link.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${apiKey}` },
    })
    expect(revoked.status).toBe(200)
    await unavailable(page, link.url)
    await page.close()
  })

  it('an expired link shows the same clear page', async () => {
    const link = await createLink()
    await running.database.db
      .update(shareLinks)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(shareLinks.id, link.id))
    const page = await context.newPage()
    await unavailable(page, link.url)
    await unavailable(page, link.embedUrl)
    await page.close()
  })
})
