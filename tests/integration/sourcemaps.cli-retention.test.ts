import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { and, asc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { deleteReleaseAction } from '@/app/(dashboard)/settings/source-maps/actions'
import { alertMessages, alertRuleEvents, credentials, memberships, sourcemapFiles } from '@/db/schema'
import { runAdminCli } from '@/inngest/cli'
import { ALERT_HISTORY_DAYS } from '@/lib/alerts/prune'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { sourcemapFolder } from '@/lib/sourcemaps/blob-key'
import { markReleaseMapsUsed } from '@/lib/sourcemaps/mark-used'
import { createBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { seedRule, seedSlackIntegration } from '../helpers/alerts'
import { dashboardMember } from '../helpers/dashboard-session'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedIn } from '../helpers/signed-in'

// Settings → Source maps: the action reads its member through this module (see the helper).
vi.mock('@/lib/http/session', () => import('../helpers/signed-in'))
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }))

/** `admin sourcemaps:upload`, `admin key:create --sourcemaps` and the retention of uploaded maps. */

let database: TestDatabase
let blobs: BlobStore
let orgId: string
const DAY = 86_400_000

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  blobs = createBlobStore({ kind: 'local', root: mkdtempSync(path.join(tmpdir(), 'sourcemaps-cli-')) })
  setBlobStoreForTests(blobs)
  orgId = (await createOrganization(database.db, { name: 'Acme' })).id
})
afterAll(async () => {
  setBlobStoreForTests(undefined)
  useDatabase(undefined)
  await database.close()
})

async function cli(...argv: string[]) {
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await runAdminCli([...argv, '--json'], {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    database,
  })
  return {
    code,
    json: code === 0 ? (JSON.parse(stdout.join('\n')) as Record<string, unknown>) : null,
    stderr: stderr.join('\n'),
  }
}

const map = (source: string) => JSON.stringify({ version: 3, sources: [source], names: [], mappings: 'AAAA' })

function buildFolder(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'dist-'))
  for (const [relative, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true })
    writeFileSync(path.join(root, relative), body)
  }
  return root
}

async function rows(release?: string) {
  return database.db
    .select()
    .from(sourcemapFiles)
    .where(
      release
        ? and(eq(sourcemapFiles.organizationId, orgId), eq(sourcemapFiles.release, release))
        : eq(sourcemapFiles.organizationId, orgId),
    )
    .orderBy(asc(sourcemapFiles.url))
}

describe('admin key:create --sourcemaps', () => {
  it('makes an upload-only Data API key, and refuses the option elsewhere', async () => {
    const created = await cli('key:create', '--org', orgId, '--type', 'api', '--sourcemaps', '--name', 'CI')
    expect(created.json).toMatchObject({ type: 'api', scopes: ['write:sourcemaps'] })
    const [row] = await database.db
      .select()
      .from(credentials)
      .where(eq(credentials.id, String(created.json!.id)))
    expect(row!.scopes).toEqual(['write:sourcemaps'])
    const ingest = await cli('key:create', '--org', orgId, '--type', 'ingest', '--sourcemaps')
    expect(ingest.code).toBe(1)
    expect(ingest.stderr).toContain('Only api keys can upload source maps (--sourcemaps)')
    const both = await cli('key:create', '--org', orgId, '--type', 'api', '--sourcemaps', '--write')
    expect(both.code).toBe(1)
    expect(both.stderr).toContain('can only upload source maps')
  })
})

describe('admin key:create --verifications', () => {
  it('makes an upload-only key for reproduction results, with source maps or alone, never with write or privacy', async () => {
    const alone = await cli('key:create', '--org', orgId, '--type', 'api', '--verifications')
    expect(alone.json).toMatchObject({ type: 'api', scopes: ['write:verifications'] })
    const ci = await cli('key:create', '--org', orgId, '--type', 'api', '--verifications', '--sourcemaps')
    expect(ci.json).toMatchObject({ scopes: ['write:sourcemaps', 'write:verifications'] })
    const [row] = await database.db
      .select()
      .from(credentials)
      .where(eq(credentials.id, String(ci.json!.id)))
    expect(row!.scopes).toEqual(['write:sourcemaps', 'write:verifications'])
    const before = await database.db.select().from(credentials).where(eq(credentials.organizationId, orgId))
    const ingest = await cli('key:create', '--org', orgId, '--type', 'ingest', '--verifications')
    expect(ingest.stderr).toContain('Only api keys can report reproduction results (--verifications)')
    const write = await cli('key:create', '--org', orgId, '--type', 'api', '--verifications', '--write')
    expect(write.stderr).toContain('create a separate key for issue status updates (--write)')
    const privacy = await cli('key:create', '--org', orgId, '--type', 'api', '--verifications', '--privacy')
    expect(privacy.stderr).toContain('create a separate key for privacy requests (--privacy)')
    expect([ingest.code, write.code, privacy.code]).toEqual([1, 1, 1])
    const after = await database.db.select().from(credentials).where(eq(credentials.organizationId, orgId))
    expect(after).toHaveLength(before.length)
  })
})

describe('admin sourcemaps:upload', () => {
  it('uploads the maps of a build folder with their minified files, as the API does', async () => {
    const dir = buildFolder({
      'assets/app.js':
        'a()\n//# debugId=6f1e2d3c-4b5a-4968-8776-655443322110\n//# sourceMappingURL=app.js.map',
      'assets/app.js.map': map('src/app.ts'),
      'assets/lazy.mjs': 'b()\n//# sourceMappingURL=../maps/lazy.mjs.map',
      'maps/lazy.mjs.map': map('src/lazy.ts'),
      'assets/nomap.js': 'c()',
      'assets/style.css': 'body{}',
      'node_modules/dep/index.js.map': map('dep.ts'),
    })
    const result = await cli(
      'sourcemaps:upload',
      '--org',
      orgId,
      '--release',
      'v1.0.0',
      '--dir',
      dir,
      '--url-prefix',
      'https://cdn.example.com',
    )
    expect(result.stderr).toBe('')
    expect(result.json).toEqual({
      release: 'v1.0.0',
      files: [
        {
          url: 'https://cdn.example.com/assets/app.js',
          debugId: '6f1e2d3c-4b5a-4968-8776-655443322110',
          sizeBytes: map('src/app.ts').length,
        },
        {
          url: 'https://cdn.example.com/assets/lazy.mjs',
          debugId: null,
          sizeBytes: map('src/lazy.ts').length,
        },
      ],
    })
    expect((await rows('v1.0.0')).map((r) => r.url)).toEqual([
      'https://cdn.example.com/assets/app.js',
      'https://cdn.example.com/assets/lazy.mjs',
    ])
  })

  it('refuses a folder whose map is broken, storing nothing', async () => {
    const before = await rows()
    const dir = buildFolder({ 'a.js.map': map('a.ts'), 'b.js.map': 'not json' })
    const result = await cli('sourcemaps:upload', '--org', orgId, '--release', 'v2', '--dir', dir)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('b.js.map is not valid JSON')
    expect(await rows()).toEqual(before)
  })
})

describe('source map retention', () => {
  it('deletes maps neither uploaded nor used within SOURCEMAP_RETENTION_DAYS, keeping blobs still in use', async () => {
    // v0 is old; its app map's content is also v1.0.0's, which is recent.
    const dir = buildFolder({
      'assets/app.js.map': map('src/app.ts'),
      'assets/old.js.map': map('src/old.ts'),
    })
    expect((await cli('sourcemaps:upload', '--org', orgId, '--release', 'v0', '--dir', dir)).code).toBe(0)
    await database.db
      .update(sourcemapFiles)
      .set({ uploadedAt: new Date(Date.now() - 91 * DAY), lastUsedAt: new Date(Date.now() - 91 * DAY) })
      .where(eq(sourcemapFiles.release, 'v0'))
    // Uploaded as long ago, but a session of it was symbolicated five days ago: still in use.
    const live = buildFolder({ 'assets/live.js.map': map('src/live.ts') })
    expect((await cli('sourcemaps:upload', '--org', orgId, '--release', 'v-live', '--dir', live)).code).toBe(
      0,
    )
    await database.db
      .update(sourcemapFiles)
      .set({ uploadedAt: new Date(Date.now() - 200 * DAY), lastUsedAt: new Date(Date.now() - 5 * DAY) })
      .where(eq(sourcemapFiles.release, 'v-live'))
    const old = await rows('v0')
    const kept = await rows('v1.0.0')
    const run = await cli('retention:run')
    expect(run.json).toMatchObject({ sourcemaps: { files: 2, blobs: 1, more: false } })
    expect(await rows('v0')).toEqual([])
    expect(await rows('v1.0.0')).toEqual(kept)
    expect(await rows('v-live')).toHaveLength(1)
    const left = await blobs.list(sourcemapFolder(orgId))
    for (const row of kept) expect(left).toContain(row.blobKey)
    expect(left).not.toContain(old.find((r) => r.url === '~/assets/old.js')!.blobKey)
  })
})

describe('admin retention:run', () => {
  it('also prunes alert history past its 90 days, as the hourly sweep does', async () => {
    const org = (await createOrganization(database.db, { name: 'Alerting' })).id
    const integration = await seedSlackIntegration(database.db, org, 'https://hooks.slack.com/services/T/B/x')
    const rule = await seedRule(database.db, {
      organizationId: org,
      name: 'New issues',
      trigger: 'issue_created',
      integrationId: integration.id,
    })
    const old = new Date(Date.now() - (ALERT_HISTORY_DAYS + 1) * DAY)
    const recent = new Date(Date.now() - DAY)
    for (const at of [old, recent]) {
      const [message] = await database.db
        .insert(alertMessages)
        .values({ ruleId: rule.id, organizationId: org, kind: 'single', createdAt: at })
        .returning()
      await database.db.insert(alertRuleEvents).values({
        ruleId: rule.id,
        organizationId: org,
        eventId: crypto.randomUUID(),
        trigger: 'issue_created',
        title: 'TypeError',
        decision: 'sent',
        messageId: message!.id,
        windowStart: at,
        windowMinutes: 10,
        createdAt: at,
      })
    }
    const run = await cli('retention:run')
    expect(run.json).toMatchObject({ alerts: { events: 1, messages: 1 } })
    const kept = async (table: typeof alertMessages | typeof alertRuleEvents) =>
      (await database.db.select().from(table).where(eq(table.ruleId, rule.id))).map((r) => r.createdAt)
    expect(await kept(alertMessages)).toEqual([recent])
    expect(await kept(alertRuleEvents)).toEqual([recent])
  })
})

describe('a release in use', () => {
  it('marks its maps used at most once a day, and only its own organization', async () => {
    const dir = buildFolder({ 'used.js.map': map('src/used.ts') })
    expect((await cli('sourcemaps:upload', '--org', orgId, '--release', 'v-used', '--dir', dir)).code).toBe(0)
    const twoDaysAgo = new Date(Date.now() - 2 * DAY)
    await database.db
      .update(sourcemapFiles)
      .set({ lastUsedAt: twoDaysAgo })
      .where(eq(sourcemapFiles.release, 'v-used'))
    const other = (await createOrganization(database.db, { name: 'Other' })).id
    await markReleaseMapsUsed(database.db, other, 'v-used')
    expect((await rows('v-used'))[0]!.lastUsedAt).toEqual(twoDaysAgo)
    await markReleaseMapsUsed(database.db, orgId, 'v-used')
    const touched = (await rows('v-used'))[0]!.lastUsedAt
    expect(touched.getTime()).toBeGreaterThan(Date.now() - 60_000)
    await markReleaseMapsUsed(database.db, orgId, 'v-used')
    expect((await rows('v-used'))[0]!.lastUsedAt).toEqual(touched)
  })
})

describe('Settings → Source maps', () => {
  it('lets owners delete a release of their own organization, and members only look', async () => {
    const dir = buildFolder({ 'x.js.map': map('x.ts') })
    expect((await cli('sourcemaps:upload', '--org', orgId, '--release', 'dash', '--dir', dir)).code).toBe(0)
    const member = await dashboardMember(database.db, orgId)
    signedIn.cookie = member.cookie
    expect(await deleteReleaseAction('dash')).toEqual({
      ok: false,
      error: 'Only organization owners can delete source maps.',
    })
    expect(await rows('dash')).toHaveLength(1)
    const outsider = await dashboardMember(
      database.db,
      (await createOrganization(database.db, { name: 'B' })).id,
    )
    await database.db.update(memberships).set({ role: 'owner' }).where(eq(memberships.userId, outsider.id))
    signedIn.cookie = outsider.cookie
    expect(await deleteReleaseAction('dash')).toEqual({ ok: false, error: 'No source maps for release dash' })
    await database.db.update(memberships).set({ role: 'owner' }).where(eq(memberships.userId, member.id))
    signedIn.cookie = member.cookie
    expect(await deleteReleaseAction('dash')).toEqual({ ok: true, message: 'Deleted 1 source map of dash.' })
    expect(await rows('dash')).toEqual([])
    signedIn.cookie = ''
  })
})
