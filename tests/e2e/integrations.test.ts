import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { eq } from 'drizzle-orm'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { integrations, issues, organizations } from '@/db/schema'
import { seedIssue } from '@/tests/helpers/seed'
import { startLinearFake, type TrackerFake } from '@/tests/helpers/tracker-fakes'
import { type ServerOnPostgres, screenshot, signUpOwner, startServerOnPostgres } from './dashboard'
import { launchChromium } from './server'

/**
 * Issue 22 in Chromium against the built server: an owner connects Slack and Linear under
 * Settings → Integrations, then creates a Linear issue from an issue page in one click. Linear is
 * a local fake the server's @linear/sdk talks to (LINEAR_API_URL); Slack's host is a loopback one
 * on SLACK_WEBHOOK_HOSTS (connecting sends nothing to it).
 */

const LINEAR_KEY = 'lin_api_e2e0123456789abcdefSECRET'
const SLOW = 240_000
const WAIT = process.env.E2E_NEXT_DEV === '1' ? 120_000 : 30_000

let linear: TrackerFake
let slack: Server
let slackHost: string
let running: ServerOnPostgres
let browser: Browser
let page: Page
let base: string

beforeAll(async () => {
  linear = await startLinearFake(LINEAR_KEY)
  slack = createServer((_req, res) => res.writeHead(200).end('ok'))
  await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', resolve))
  slackHost = `127.0.0.1:${(slack.address() as AddressInfo).port}`
  running = await startServerOnPostgres({ SLACK_WEBHOOK_HOSTS: slackHost, LINEAR_API_URL: linear.url })
  base = running.server.baseUrl
  browser = await launchChromium()
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(WAIT)
  context.setDefaultNavigationTimeout(WAIT)
  page = await context.newPage()
}, 600_000)

afterAll(async () => {
  await browser?.close()
  await running?.stop()
  await linear?.close()
  await new Promise((resolve) => slack?.close(resolve))
})

describe('integrations in Chromium', () => {
  it(
    'connects Slack and Linear, then creates a Linear issue from the issue page',
    async () => {
      await signUpOwner(page, base)
      await page.goto(`${base}/settings`)
      await page
        .getByRole('navigation', { name: 'Settings' })
        .getByRole('link', { name: 'Integrations' })
        .click()
      await page.waitForURL(`${base}/settings/integrations`)

      const slackForm = page.getByRole('form', { name: 'Connect Slack' })
      await slackForm
        .getByLabel('Incoming-webhook URL')
        .fill(`http://${slackHost}/services/T0/B0/secretsecret`)
      await slackForm.getByRole('button', { name: 'Connect Slack' }).click()
      await slackForm.getByText('Connected Slack.').waitFor()

      const linearForm = page.getByRole('form', { name: 'Connect Linear' })
      await linearForm.getByLabel('API key').fill('lin_api_not_the_right_key_00')
      await linearForm.getByLabel('Team (key or id)').fill('ENG')
      await linearForm.getByRole('button', { name: 'Connect Linear' }).click()
      await linearForm.getByText('Linear rejected the API key.').waitFor()
      await linearForm.getByLabel('API key').fill(LINEAR_KEY)
      await linearForm.getByLabel('Team (key or id)').fill('ENG')
      await linearForm.getByRole('button', { name: 'Connect Linear' }).click()
      await page.getByText('Connected Linear (team ENG).').waitFor()
      await page.reload()
      await expect(page.getByTestId('integration').count()).resolves.toBe(2)
      const html = await page.content()
      expect(html).not.toContain(LINEAR_KEY)
      expect(html).not.toContain('secretsecret')
      await screenshot(page, 'integrations-01-connected')

      const [org] = await running.database.db.select().from(organizations)
      const issue = await seedIssue(running.database.db, org!.id, { title: 'Checkout button does nothing' })
      await page.goto(`${base}/issues/${issue.id}`)
      await page.getByRole('button', { name: 'Create Linear issue' }).click()
      await page.getByText('Created ENG-42. Status: In a ticket.').waitFor()
      const link = page.getByTestId('linked-ticket').getByRole('link', { name: 'ENG-42' })
      await link.waitFor()
      expect(await link.getAttribute('href')).toBe('https://linear.app/acme/issue/ENG-42')
      expect(await page.getByTestId('issue-status').textContent()).toBe('In a ticket')
      await expect(page.getByRole('button', { name: 'Create Linear issue' }).count()).resolves.toBe(0)
      await screenshot(page, 'integrations-02-ticket')

      expect(linear.created).toHaveLength(1)
      expect(linear.created[0]!.body).toContain(`${base}/issues/${issue.id}`)
      const [row] = await running.database.db.select().from(issues).where(eq(issues.id, issue.id))
      expect(row).toMatchObject({
        status: 'ticket_created',
        ticketProvider: 'Linear',
        ticketIdentifier: 'ENG-42',
      })
      const [stored] = await running.database.db
        .select()
        .from(integrations)
        .where(eq(integrations.kind, 'linear'))
      expect(stored!.lastError).toBeNull()
    },
    SLOW,
  )
})
