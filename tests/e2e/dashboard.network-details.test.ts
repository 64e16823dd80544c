import { and, eq } from 'drizzle-orm'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issues, organizations } from '@/db/schema'
import type { RrwebEvent } from '@/lib/analysis/types'
import { createKey } from '@/lib/credentials/create-key'
import { recorderBatches } from '@/tests/helpers/batches'
import { endingNow, loadRecording } from '@/tests/helpers/pipeline'
import { type ServerOnPostgres, screenshot, signUpOwner, startServerOnPostgres } from './dashboard'
import { launchChromium } from './server'

/**
 * Where captured network details show (docs/network-details.md#where-details-show): a session
 * with a failed request whose headers and JSON error body were captured goes through the real
 * ingest route and processing; the issue page shows the server's message, the replay's network
 * pane the details, and an owner switches the organization's policy in Settings.
 */

let env: ServerOnPostgres
let browser: Browser
let page: Page
let baseUrl: string
const pageErrors: string[] = []

const db = () => env.database.db
const MESSAGE = 'Insufficient stock for SKU 42'

beforeAll(async () => {
  env = await startServerOnPostgres()
  baseUrl = env.server.baseUrl
  browser = await launchChromium()
  page = await (await browser.newContext()).newPage()
  await page.setViewportSize({ width: 1280, height: 900 })
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
})

afterAll(async () => {
  await browser?.close()
  await env?.stop()
})

async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${env.server.logs().slice(-3000)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** A real recording whose 503 answer carries the details the recorder captures for allowlisted URLs. */
function withDetails(events: RrwebEvent[]): RrwebEvent[] {
  return events.map((event) => {
    const data = event.data as { plugin?: string; payload?: { requests?: Record<string, unknown>[] } }
    if (data.plugin !== 'rrweb/network@1') return event
    const requests = (data.payload?.requests ?? []).map((request) =>
      request.status === 503
        ? {
            ...request,
            requestHeaders: { 'content-type': 'application/json' },
            requestBody: '{"sku":42,"quantity":3}',
            responseHeaders: { 'content-type': 'application/json', 'x-request-id': 'req-7f3a' },
            responseBody: JSON.stringify({ error: { message: MESSAGE } }),
          }
        : request,
    )
    return { ...event, data: { ...data, payload: { ...data.payload, requests } } }
  })
}

describe('captured network details in Chromium', () => {
  let orgId: string
  let issueId: string

  it('shows the server message on the issue page and the details in the network pane', async () => {
    await signUpOwner(page, baseUrl)
    const [org] = await db().select().from(organizations)
    orgId = org!.id
    const { key } = await createKey(db(), { organizationId: orgId, type: 'ingest' })
    const events = endingNow(withDetails(loadRecording('network-failed').events))
    for (const batch of recorderBatches({ sessionId: 'e2e-details', events, perBatch: 20 })) {
      const response = await fetch(`${baseUrl}/api/sdk/replay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': key },
        body: JSON.stringify(batch),
      })
      expect(response.status, await response.clone().text()).toBe(200)
    }
    const issue = await until('the 503 to become an issue', async () => {
      const rows = await db()
        .select()
        .from(issues)
        .where(and(eq(issues.organizationId, orgId), eq(issues.kind, 'network_error')))
      return rows.find((row) => (row.evidence as { status?: number } | null)?.status === 503)
    })
    issueId = issue.id
    expect(issue.title).toBe('PUT /api/profile returns 503 on /settings')
    expect(issue.description).toContain(`The server answered: “${MESSAGE}”.`)

    await page.goto(`${baseUrl}/issues/${issueId}`)
    const fact = page.locator('dl div').filter({ has: page.locator('dt', { hasText: 'Server message' }) })
    expect(await fact.locator('dd').textContent()).toBe(MESSAGE)

    await page.getByRole('tab', { name: /^Network \(\d+\)$/ }).click()
    const details = page.getByRole('list', { name: 'Network requests' }).getByTestId('request-details')
    expect(await details.count()).toBe(1)
    await details.locator('summary').click()
    // Visible once opened (waitFor waits for visibility).
    await details.getByText('req-7f3a').waitFor()
    const text = await details.textContent()
    for (const part of ['Request headers', 'Request body', 'Response headers', 'Response body', 'req-7f3a'])
      expect(text).toContain(part)
    // The JSON body pretty-printed, as text.
    expect(await details.locator('pre').last().textContent()).toBe(
      `{\n  "error": {\n    "message": "${MESSAGE}"\n  }\n}`,
    )
    await screenshot(page, 'network-details-01-issue')
  })

  it('lets the owner switch the policy in Settings, refusing bad key words', async () => {
    await page.goto(`${baseUrl}/settings`)
    const form = page.getByRole('form', { name: 'Network details policy' })
    expect(await form.getByLabel('Redact at ingest (default)').isChecked()).toBe(true)
    await form.getByLabel('Drop all headers and bodies').check()
    await form.getByLabel('More JSON key words to redact').fill('card number')
    await form.getByRole('button', { name: 'Save network details policy' }).click()
    await form.getByRole('alert').waitFor()
    expect(await form.getByRole('alert').textContent()).toContain('may hold only letters, digits, _ and -')
    const policy = async () =>
      (await db().select().from(organizations).where(eq(organizations.id, orgId)))[0]!
    expect((await policy()).networkDetails).toBe('redact')
    // The refused input is still there to correct.
    expect(await form.getByLabel('Drop all headers and bodies').isChecked()).toBe(true)
    expect(await form.getByLabel('More JSON key words to redact').inputValue()).toBe('card number')

    await form.getByLabel('More JSON key words to redact').fill('cardNumber, iban')
    await form.getByRole('button', { name: 'Save network details policy' }).click()
    await form.getByRole('status').waitFor()
    expect(await form.getByRole('status').textContent()).toBe(
      'Network details: Drop all headers and bodies; 2 extra key words redacted.',
    )
    expect(await policy()).toMatchObject({
      networkDetails: 'drop',
      networkRedactKeys: ['cardnumber', 'iban'],
    })
    await screenshot(page, 'network-details-02-settings')
    expect(pageErrors).toEqual([])
  })
})
