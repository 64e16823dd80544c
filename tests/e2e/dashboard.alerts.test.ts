import { eq } from 'drizzle-orm'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alertRules, memberships } from '@/db/schema'
import { parseConfig, setConfigForTests } from '@/lib/config'
import { seedSlackIntegration } from '../helpers/alerts'
import { type ServerOnPostgres, screenshot, signUpOwner, startServerOnPostgres } from './dashboard'
import { E2E_AUTH_SECRET, launchChromium } from './server'

const SLOW = 240_000
const WAIT = process.env.E2E_NEXT_DEV === '1' ? 120_000 : 30_000

let running: ServerOnPostgres
let browser: Browser
let owner: Page
let base: string

beforeAll(async () => {
  running = await startServerOnPostgres()
  // The integration's secret is seeded encrypted under the server's AUTH_SECRET.
  const { BASE_URL: _viteBase, ...env } = process.env
  setConfigForTests(parseConfig({ ...env, AUTH_SECRET: E2E_AUTH_SECRET }))
  base = running.server.baseUrl
  browser = await launchChromium()
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(WAIT)
  context.setDefaultNavigationTimeout(WAIT)
  owner = await context.newPage()
  owner.on('dialog', (dialog) => void dialog.accept())
}, 600_000)

afterAll(async () => {
  setConfigForTests(undefined)
  await browser?.close()
  await running?.stop()
})

describe('Settings → Alerts in Chromium', () => {
  it(
    'creates a rule to a Slack integration, shows its history, pauses and deletes it',
    async () => {
      await signUpOwner(owner, base)
      // Integrations are created on their own page (another part of the dashboard); seeded here.
      const [membership] = await running.database.db.select().from(memberships)
      await seedSlackIntegration(
        running.database.db,
        membership!.organizationId,
        'https://hooks.slack.com/services/T/B/x',
      )

      await owner.goto(`${base}/settings`)
      await owner.getByRole('link', { name: 'Alerts' }).click()
      await owner.waitForURL(`${base}/settings/alerts`)
      await owner.getByLabel('Name').fill('Checkout errors')
      await owner.getByLabel('When').selectOption('issue_created')
      await owner.getByLabel('critical').check()
      // Kinds read as the issues list names them, not as their API ids.
      await owner.getByLabel('Failed request').check()
      expect(await owner.getByText('network_error').count()).toBe(0)
      await owner.getByLabel('Page URL contains (plain text, optional)').fill('/checkout')
      await owner.getByLabel('Window (minutes)').fill('0')
      await owner.evaluate(() =>
        document.querySelector('input[name="windowMinutes"]')?.removeAttribute('min'),
      )
      await owner.getByRole('button', { name: 'Create rule' }).click()
      await owner.getByText('The window must be at least 1.').waitFor()
      await owner.getByLabel('Window (minutes)').fill('15')
      await owner.getByRole('button', { name: 'Create rule' }).click()
      await owner.getByText('Rule Checkout errors created.').waitFor()
      const card = owner.getByTestId('alert-rule')
      await expect(card.textContent()).resolves.toContain('URL contains “/checkout”')
      await expect(card.textContent()).resolves.toContain(
        'A new issue · priority critical, kind Failed request',
      )
      await expect(card.textContent()).resolves.toContain('Slack: Alerts channel')
      await screenshot(owner, 'settings-alerts-01-rules')

      await card.getByRole('button', { name: 'Pause' }).click()
      await card.locator('.badge', { hasText: 'paused' }).waitFor()
      const [rule] = await running.database.db.select().from(alertRules)
      expect(rule!.pausedAt).not.toBeNull()

      await card.getByRole('link', { name: 'Checkout errors' }).click()
      await owner.waitForURL(`${base}/settings/alerts/${rule!.id}`)
      await owner.getByText('Nothing has matched this rule yet.').waitFor()
      await screenshot(owner, 'settings-alerts-02-history')

      await owner.goto(`${base}/settings/alerts`)
      await owner.getByTestId('alert-rule').getByRole('button', { name: 'Delete' }).click()
      await owner.getByTestId('alert-rule').waitFor({ state: 'detached' })
      expect(await running.database.db.select().from(alertRules).where(eq(alertRules.id, rule!.id))).toEqual(
        [],
      )
    },
    SLOW,
  )
})
