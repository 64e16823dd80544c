import { eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { invitations } from '@/db/schema'
import { hashToken } from '@/lib/credentials/tokens'
import {
  axeViolations,
  hasHorizontalOverflow,
  OWNER,
  phonePage,
  type ServerOnPostgres,
  screenshot,
  signUpOwner,
  startServerOnPostgres,
} from './dashboard'
import { launchChromium } from './server'

const MEMBER = { name: 'Grace Hopper', email: 'grace@example.com', password: 'compiler pioneer 1952' }
const SLOW = 240_000
// `next dev` compiles each route on its first request; a built server answers at once.
const WAIT = process.env.E2E_NEXT_DEV === '1' ? 120_000 : 30_000
const ROUTES = ['/login', '/signup', '/', '/settings', '/settings/keys', '/settings/mcp', '/invite/svc_inv_x']

async function newContext() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  context.setDefaultTimeout(WAIT)
  context.setDefaultNavigationTimeout(WAIT)
  return context
}

let running: ServerOnPostgres
let browser: Browser
let ownerContext: BrowserContext
let owner: Page
let base: string
let invitationLink = ''

beforeAll(async () => {
  running = await startServerOnPostgres()
  base = running.server.baseUrl
  for (const route of ROUTES) await fetch(`${base}${route}`, { redirect: 'manual' })
  browser = await launchChromium()
  ownerContext = await newContext()
  owner = await ownerContext.newPage()
  owner.on('dialog', (dialog) => void dialog.accept())
}, 600_000)

afterAll(async () => {
  await browser?.close()
  await running?.stop()
})

const fieldValue = (page: Page, testId: string) => page.getByTestId(testId).inputValue()

describe('settings in Chromium', () => {
  it(
    'lets the owner rename the organization',
    async () => {
      await signUpOwner(owner, base)
      await owner.goto(`${base}/settings`)
      await expect(owner.getByTestId('your-role').textContent()).resolves.toBe('owner')
      await owner.getByLabel('Organization name').fill('   ')
      await owner.evaluate(() => document.querySelector('#organization-name')?.removeAttribute('required'))
      await owner.getByRole('button', { name: 'Rename' }).click()
      await owner.getByText('Organization name must not be empty').waitFor()
      await owner.getByLabel('Organization name').fill('Acme Labs')
      await owner.getByRole('button', { name: 'Rename' }).click()
      await owner.getByText('The organization is now called Acme Labs.').waitFor()
      await owner.reload()
      await expect(owner.getByTestId('organization-name').textContent()).resolves.toBe('Acme Labs')
      await expect(owner.getByTestId('current-user').textContent()).resolves.toContain('Acme Labs')
      await screenshot(owner, 'settings-01-organization')
    },
    SLOW,
  )

  it(
    'creates an ingest key shown once with its snippet, then only its prefix',
    async () => {
      await owner.goto(`${base}/settings/keys`)
      await owner.getByTestId('no-ingest-keys').waitFor()
      const form = owner.getByRole('form', { name: 'Create an ingest key' })
      await form.getByLabel('Key name').fill('Marketing site')
      await form.getByRole('button', { name: 'Create ingest key' }).click()
      await owner.getByTestId('created-ingest-key').waitFor()
      const key = await fieldValue(owner, 'new-ingest-key')
      expect(key).toMatch(/^svc_pk_[A-Za-z0-9_-]{43}$/)
      const snippet = await fieldValue(owner, 'new-ingest-example')
      expect(snippet).toContain(`src="${base}/sdk.js"`)
      expect(snippet).toContain(`data-api-key="${key}"`)
      await screenshot(owner, 'settings-02-ingest-key-created')
      await owner.reload()
      const row = owner.getByTestId('ingest-key-row')
      await expect(row.textContent()).resolves.toContain(`${key.slice(0, 13)}…`)
      await expect(row.textContent()).resolves.toContain('active')
      expect(await owner.content()).not.toContain(key)
    },
    SLOW,
  )

  it(
    'creates a Data API key that may update status, reads the Data API with it, and revokes it',
    async () => {
      const form = owner.getByRole('form', { name: 'Create a Data API key' })
      await form.getByLabel('Key name').fill('Triage bot')
      await form.getByLabel('Allow issue status updates').check()
      await form.getByRole('button', { name: 'Create Data API key' }).click()
      await owner.getByTestId('created-api-key').waitFor()
      await expect(owner.getByTestId('created-api-key').textContent()).resolves.toContain(
        'read:service and write:issues',
      )
      const key = await fieldValue(owner, 'new-api-key')
      expect(key).toMatch(/^svc_api_/)
      expect(await fieldValue(owner, 'new-api-example')).toBe(
        `curl -H "Authorization: Bearer ${key}" ${base}/api/v1/issues`,
      )
      const read = await fetch(`${base}/api/v1/issues`, { headers: { Authorization: `Bearer ${key}` } })
      expect(read.status).toBe(200)
      expect(await read.json()).toEqual({ issues: [], nextCursor: null })

      await owner.reload()
      const row = owner.getByTestId('api-key-row')
      await expect(row.textContent()).resolves.toContain('update status')
      await row.getByRole('button', { name: 'Revoke Triage bot' }).click()
      await row.getByText('revoked').waitFor()
      const after = await fetch(`${base}/api/v1/issues`, { headers: { Authorization: `Bearer ${key}` } })
      expect(after.status).toBe(401)
      await screenshot(owner, 'settings-03-keys')
    },
    SLOW,
  )

  it(
    'invites a member with the keyboard alone and shows the link once',
    async () => {
      await owner.goto(`${base}/settings`)
      await owner.getByTestId('no-invitations').waitFor()
      await owner.locator('body').focus()
      let reached = false
      for (let i = 0; i < 80 && !reached; i++) {
        await owner.keyboard.press('Tab')
        reached = await owner.evaluate(() => document.activeElement?.id === 'invite-email')
      }
      expect(reached).toBe(true)
      await owner.keyboard.type(MEMBER.email.toUpperCase())
      await owner.keyboard.press('Tab')
      expect(await owner.evaluate(() => document.activeElement?.id)).toBe('invite-role')
      await owner.keyboard.press('Tab')
      await owner.keyboard.press('Enter')
      await owner.getByTestId('invitation-link').waitFor()
      invitationLink = await fieldValue(owner, 'invitation-link')
      expect(invitationLink).toMatch(new RegExp(`^${base}/invite/svc_inv_[A-Za-z0-9_-]{43}$`))
      await expect(
        owner.getByRole('status').filter({ hasText: 'does not send e-mail' }).textContent(),
      ).resolves.toContain('expires in 7 days')
      // Only the hash is stored.
      const token = invitationLink.slice(invitationLink.lastIndexOf('/') + 1)
      const [row] = await running.database.db
        .select()
        .from(invitations)
        .where(eq(invitations.tokenHash, hashToken(token)))
      expect(row?.email).toBe(MEMBER.email)

      // Copy puts the link on the clipboard.
      await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
      await owner.getByRole('button', { name: 'Copy invitation link' }).click()
      await owner.getByText('Copied.').waitFor()
      expect(await owner.evaluate(() => navigator.clipboard.readText())).toBe(invitationLink)
      await screenshot(owner, 'settings-04-invitation-link')

      await owner.reload()
      await expect(owner.getByTestId('invitation-row').textContent()).resolves.toContain(MEMBER.email)
      expect(await owner.content()).not.toContain(token)
    },
    SLOW,
  )

  it(
    'lets the invited person create an account from the link and see settings read-only',
    async () => {
      const context = await newContext()
      const page = await context.newPage()
      await page.goto(invitationLink)
      await page.getByRole('heading', { name: 'Join Acme Labs' }).waitFor()
      await expect(page.getByLabel('E-mail').inputValue()).resolves.toBe(MEMBER.email)
      await expect(page.getByLabel('E-mail').getAttribute('readonly')).resolves.not.toBeNull()
      await screenshot(page, 'settings-05-invitation-page')
      await page.getByLabel('Your name').fill(MEMBER.name)
      await page.getByLabel('Password').fill(MEMBER.password)
      await page.getByRole('button', { name: 'Create account and join' }).click()
      await page.waitForURL(`${base}/`)
      await expect(page.getByTestId('current-user').textContent()).resolves.toContain(
        `${MEMBER.email} · Acme Labs`,
      )

      await page.goto(`${base}/settings`)
      await page.getByTestId('read-only-note').waitFor()
      await expect(page.getByTestId('your-role').textContent()).resolves.toBe('member')
      await expect(page.getByLabel('Organization name').isDisabled()).resolves.toBe(true)
      await expect(page.getByLabel('E-mail address').isDisabled()).resolves.toBe(true)
      await expect(page.getByRole('button', { name: /^Make owner: / }).count()).resolves.toBe(0)
      await screenshot(page, 'settings-06-member-read-only')
      // The server re-checks the role: a re-enabled form still changes nothing.
      await page.evaluate(() => {
        for (const el of document.querySelectorAll('form[aria-label="Rename the organization"] [disabled]'))
          el.removeAttribute('disabled')
      })
      await page.getByLabel('Organization name').fill('Hijacked')
      await page.getByRole('button', { name: 'Rename' }).click()
      await page.getByText('Only organization owners can rename the organization.').waitFor()
      await page.reload()
      await expect(page.getByTestId('organization-name').textContent()).resolves.toBe('Acme Labs')

      await page.goto(`${base}/settings/keys`)
      await page.getByTestId('read-only-note').waitFor()
      await page.evaluate(() => {
        for (const el of document.querySelectorAll('form[aria-label="Create an ingest key"] [disabled]'))
          el.removeAttribute('disabled')
      })
      await page.getByRole('form', { name: 'Create an ingest key' }).getByLabel('Key name').fill('Sneaky')
      await page.getByRole('button', { name: 'Create ingest key' }).click()
      await page.getByText('Only organization owners can create keys.').waitFor()
      await expect(page.getByTestId('ingest-key-row').count()).resolves.toBe(1)
      await page.reload()
      await expect(page.getByRole('button', { name: 'Create ingest key' }).isDisabled()).resolves.toBe(true)
      await expect(page.getByRole('button', { name: /^Revoke / }).count()).resolves.toBe(0)

      // The link worked once.
      const other = await newContext()
      const stale = await other.newPage()
      await stale.goto(invitationLink)
      await stale.getByRole('heading', { name: 'This invitation was already used' }).waitFor()
      await screenshot(stale, 'settings-07-invitation-used')
      await stale.goto(`${base}/invite/svc_inv_not-a-real-token`)
      await stale.getByRole('heading', { name: 'This invitation link is not valid' }).waitFor()
      await other.close()

      // The owner makes the member an owner; the member's settings open up.
      await owner.goto(`${base}/settings`)
      const row = owner.getByTestId('member-row').filter({ hasText: MEMBER.email })
      await row.getByRole('button', { name: `Make owner: ${MEMBER.name}` }).click()
      await row.getByRole('button', { name: `Make member: ${MEMBER.name}` }).waitFor()
      await page.goto(`${base}/settings`)
      await expect(page.getByTestId('your-role').textContent()).resolves.toBe('owner')
      await expect(page.getByTestId('read-only-note').count()).resolves.toBe(0)
      await expect(page.getByLabel('Organization name').isDisabled()).resolves.toBe(false)
      await context.close()
    },
    SLOW,
  )

  it(
    'tells a signed-in person whose address differs that the link is not theirs',
    async () => {
      await owner.goto(`${base}/settings`)
      await owner.getByLabel('E-mail address').fill('linus@example.com')
      await owner.getByRole('button', { name: 'Create invitation link' }).click()
      const link = await fieldValue(owner, 'invitation-link')
      await owner.goto(link)
      await owner
        .getByText(`You are signed in as ${OWNER.email}, but this invitation is for linus@example.com.`)
        .waitFor()
      await owner.getByRole('button', { name: 'Sign out and continue' }).waitFor()
      await owner.goto(`${base}/settings`)
      await owner.getByRole('button', { name: 'Revoke the invitation for linus@example.com' }).click()
      await owner.getByTestId('no-invitations').waitFor()
      const stale = await (await newContext()).newPage()
      await stale.goto(link)
      await stale.getByRole('heading', { name: 'This invitation was revoked' }).waitFor()
      await stale.context().close()
    },
    SLOW,
  )

  it(
    'shows how to connect an AI agent, with the endpoint URL',
    async () => {
      await owner.goto(`${base}/settings/mcp`)
      await expect(fieldValue(owner, 'mcp-endpoint')).resolves.toBe(`${base}/api/mcp`)
      await expect(owner.getByLabel('Claude Code command', { exact: true }).inputValue()).resolves.toBe(
        `claude mcp add --transport http session-replay ${base}/api/mcp`,
      )
      for (const tool of ['list_signals', 'list_issues', 'get_issue', 'list_insights', 'update_issue'])
        await owner.getByText(tool, { exact: true }).first().waitFor()
      await screenshot(owner, 'settings-08-mcp')
    },
    SLOW,
  )

  it(
    'meets WCAG 2.2 AA on every settings page (axe: no violations)',
    async () => {
      const page = await ownerContext.newPage()
      const found: string[] = []
      for (const path of [
        '/settings',
        '/settings/keys',
        '/settings/alerts',
        '/settings/webhooks',
        '/settings/integrations',
        '/settings/connected-apps',
        '/settings/source-maps',
        '/settings/privacy',
        '/settings/masking',
        '/settings/audit',
        '/settings/mcp',
      ]) {
        await page.goto(`${base}${path}`, { waitUntil: 'networkidle' })
        await page.getByRole('heading', { level: 1 }).first().waitFor()
        for (const violation of await axeViolations(page)) found.push(`${path}: ${violation}`)
      }
      expect(found).toEqual([])
      await page.close()
    },
    SLOW,
  )

  it(
    'fits every settings page on a 390 px phone',
    async () => {
      const phone = await phonePage(ownerContext)
      for (const [path, name] of [
        ['/settings', 'organization'],
        ['/settings/keys', 'keys'],
        ['/settings/mcp', 'mcp'],
      ] as const) {
        await phone.goto(`${base}${path}`, { waitUntil: 'networkidle' })
        await phone.getByRole('heading', { level: 1 }).first().waitFor()
        const wide = await phone.evaluate(() =>
          Array.from(document.querySelectorAll('body *'))
            .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .map((el) => `${el.tagName}.${el.className}`)
            .slice(0, 5)
            .join(', '),
        )
        expect(await hasHorizontalOverflow(phone), `${path} overflows at 390 px: ${wide}`).toBe(false)
        await screenshot(phone, `settings-09-phone-${name}`)
      }
      await phone.close()
    },
    SLOW,
  )
})
