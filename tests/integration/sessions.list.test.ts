import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replaySessions } from '@/db/schema'
import { getJobsEngine } from '@/inngest/app'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { InvalidInputError, NotFoundError } from '@/lib/errors'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { getSession, SESSION_NOT_FOUND } from '@/lib/sessions/get-session'
import { listSessions } from '@/lib/sessions/list-sessions'
import { ingestAs, waitForProcessed } from '../helpers/dashboard-session'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { endingNow, loadRecording } from '../helpers/pipeline'

let database: TestDatabase
let app: JobsEngine
let orgId: string
let otherOrgId: string
const ids: Record<string, string> = {}

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  app = getJobsEngine()
  await app.start()
  orgId = (await createOrganization(database.db, { name: 'Shop' })).id
  otherOrgId = (await createOrganization(database.db, { name: 'Other' })).id
  const key = (await createKey(database.db, { organizationId: orgId, type: 'ingest' })).key
  const otherKey = (await createKey(database.db, { organizationId: otherOrgId, type: 'ingest' })).key
  // Oldest first: the list answers newest first.
  const seeds = [
    {
      name: 'clean',
      recording: 'clean',
      user: { id: 'u-grace', email: 'grace@example.com', name: 'Grace Hopper' },
    },
    {
      name: 'error',
      recording: 'js-error-after-click',
      user: { id: 'u-ada', email: 'ada@example.com', name: 'Ada' },
    },
    {
      name: 'anonymous',
      recording: 'rage-click',
      user: null,
      url: 'https://shop.example/editor?doc=100%_draft',
    },
    { name: 'console', recording: 'console-error', user: { id: 'u-linus', email: null, name: null } },
  ] as const
  for (const seed of seeds) {
    const events = endingNow(loadRecording(seed.recording).events)
    ids[seed.name] = await ingestAs(database.db, key, `list-${seed.name}`, events, {
      user: seed.user,
      url: 'url' in seed ? seed.url : undefined,
    })
  }
  ids.foreign = await ingestAs(
    database.db,
    otherKey,
    'list-foreign',
    endingNow(loadRecording('js-error-after-click').events),
    { user: { id: 'u-ada', email: 'ada@example.com', name: 'Ada' } },
  )
  for (const id of Object.values(ids)) await waitForProcessed(database.db, id)
})
afterAll(async () => {
  await app.stop()
  useDatabase(undefined)
  await database.close()
})

const names = (items: { id: string }[]) =>
  items.map((item) => Object.entries(ids).find(([, id]) => id === item.id)?.[0] ?? item.id)

describe('listSessions', () => {
  it("answers the organization's sessions newest first with the figures of their analysis", async () => {
    const page = await listSessions(database.db, orgId, { limit: 25 })
    expect(names(page.items)).toEqual(['console', 'anonymous', 'error', 'clean'])
    expect(page.nextCursor).toBeNull()
    const error = page.items.find((item) => item.id === ids.error)!
    expect(error).toMatchObject({
      user: { userId: 'u-ada', email: 'ada@example.com', name: 'Ada', anonymousId: 'anon-list-error' },
      entryUrl: 'http://127.0.0.1/',
      status: 'processed',
      pageCount: 1,
      errorCount: 1,
      rageClickCount: 0,
      eventCount: loadRecording('js-error-after-click').events.length,
    })
    expect(error.durationMs).toBeGreaterThan(0)
    expect(error.startedAt).toBeInstanceOf(Date)
    const rage = page.items.find((item) => item.id === ids.anonymous)!
    expect(rage).toMatchObject({
      user: { userId: null, email: null, name: null },
      rageClickCount: 1,
      errorCount: 0,
    })
  })

  it('shows a session still being recorded with its duration so far and no figures yet', async () => {
    const org = (await createOrganization(database.db, { name: 'Live' })).id
    const key = (await createKey(database.db, { organizationId: org, type: 'ingest' })).key
    const events = endingNow(loadRecording('multi-page').events)
    const id = await ingestAs(database.db, key, 'live', events, { final: false })
    const [item] = (await listSessions(database.db, org, { limit: 25 })).items
    expect(item).toMatchObject({
      id,
      status: 'receiving',
      errorCount: null,
      pageCount: null,
      eventCount: events.length,
    })
    expect(item!.durationMs).toBe(events.at(-1)!.timestamp - events[0]!.timestamp)
  })

  it('pages with a cursor bound to the organization and the filters', async () => {
    const first = await listSessions(database.db, orgId, { limit: 3 })
    expect(names(first.items)).toEqual(['console', 'anonymous', 'error'])
    expect(first.nextCursor).toEqual(expect.any(String))
    const second = await listSessions(database.db, orgId, { limit: 3, cursor: first.nextCursor! })
    expect(names(second.items)).toEqual(['clean'])
    expect(second.nextCursor).toBeNull()
    // Another organization's list, or the same list with a filter, refuses the cursor.
    await expect(
      listSessions(database.db, otherOrgId, { limit: 3, cursor: first.nextCursor! }),
    ).rejects.toThrow(InvalidInputError)
    await expect(
      listSessions(database.db, orgId, { limit: 3, cursor: first.nextCursor!, errorsOnly: true }),
    ).rejects.toThrow(InvalidInputError)
    await expect(listSessions(database.db, orgId, { limit: 3, cursor: 'forged.cursor' })).rejects.toThrow(
      /cursor is invalid/,
    )
  })

  it('filters to sessions with errors (uncaught or console)', async () => {
    const page = await listSessions(database.db, orgId, { limit: 25, errorsOnly: true })
    expect(names(page.items)).toEqual(['console', 'error'])
  })

  it('searches user e-mail, name, id, anonymous id, session id and entry URL, case-insensitively', async () => {
    const search = async (text: string, errorsOnly = false) =>
      names((await listSessions(database.db, orgId, { limit: 25, search: text, errorsOnly })).items)
    expect(await search('GRACE@')).toEqual(['clean'])
    expect(await search('hopper')).toEqual(['clean'])
    expect(await search('u-linus')).toEqual(['console'])
    expect(await search('anon-list-anonymous')).toEqual(['anonymous'])
    expect(await search(ids.error!)).toEqual(['error'])
    expect(await search('/editor')).toEqual(['anonymous'])
    // LIKE wildcards typed by the user are literal characters.
    expect(await search('100%_draft')).toEqual(['anonymous'])
    expect(await search('100%x')).toEqual([])
    expect(await search('%')).toEqual(['anonymous'])
    expect(await search('  ada@example.com  ')).toEqual(['error'])
    expect(await search('example.com', true)).toEqual(['error'])
    // Never another organization's session, even when it matches.
    expect(await search(ids.foreign!)).toEqual([])
    expect(await search('')).toHaveLength(4)
  })

  it('refuses a search longer than 200 characters', async () => {
    await expect(listSessions(database.db, orgId, { limit: 25, search: 'x'.repeat(201) })).rejects.toThrow(
      'Search for at most 200 characters',
    )
  })
})

describe('getSession', () => {
  it('answers a session of the organization with its request facts', async () => {
    const session = await getSession(database.db, orgId, ids.error!)
    expect(session).toMatchObject({
      id: ids.error,
      organizationId: orgId,
      externalId: 'list-error',
      user: { userId: 'u-ada', email: 'ada@example.com', name: 'Ada' },
      userProperties: { email: 'ada@example.com', name: 'Ada', plan: 'pro' },
      userAgent: 'Mozilla/5.0 Chrome/156.0',
      language: 'en',
      viewport: { width: 1280, height: 800 },
      status: 'processed',
      errorCount: 1,
    })
    expect(session.digest).toMatchObject({
      errors: [expect.objectContaining({ message: expect.any(String) })],
    })
  })

  it("treats another organization's session and a malformed id as not found", async () => {
    await expect(getSession(database.db, orgId, ids.foreign!)).rejects.toThrow(NotFoundError)
    await expect(getSession(database.db, orgId, ids.foreign!)).rejects.toThrow(SESSION_NOT_FOUND)
    await expect(getSession(database.db, orgId, 'not-a-uuid')).rejects.toThrow(NotFoundError)
    await expect(getSession(database.db, orgId, '00000000-0000-4000-8000-000000000000')).rejects.toThrow(
      NotFoundError,
    )
    const [foreign] = await database.db
      .select({ id: replaySessions.id })
      .from(replaySessions)
      .where(and(eq(replaySessions.organizationId, otherOrgId)))
    expect(foreign?.id).toBe(ids.foreign)
  })
})
