import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { addNoteAction } from '@/app/(dashboard)/issues/[issueId]/actions'
import type { Db } from '@/db/client'
import { issueActivities, issues, outbox, users } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { issueHistory } from '@/lib/issues/issue-history'
import { addIssueNote } from '@/lib/issues/issue-notes'
import { createOrganization } from '@/lib/orgs/create-organization'
import { dashboardMember } from '../helpers/dashboard-session'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { seedIssue } from '../helpers/seed'
import { signedIn } from '../helpers/signed-in'

// The session of whoever `signedIn.cookie` names (see the helper); everything after it is real.
vi.mock('@/lib/http/session', () => import('../helpers/signed-in'))
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }))

/** The dashboard's "Add note" server action and the notes in an issue's history. */

let database: TestDatabase
let db: Db
let orgId: string
let member: { id: string; cookie: string }

beforeAll(async () => {
  database = await createTestDatabase()
  db = database.db
  useDatabase(database)
  orgId = (await createOrganization(db, { name: 'Acme' })).id
  member = await dashboardMember(db, orgId)
  await db.update(users).set({ name: 'Ada Lovelace' }).where(eq(users.id, member.id))
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})
afterEach(() => {
  signedIn.cookie = ''
})

const form = (text: string) => {
  const data = new FormData()
  data.set('text', text)
  return data
}

async function notesOf(issueId: string) {
  return (await db.select().from(issueActivities).where(eq(issueActivities.issueId, issueId))).filter(
    (a) => a.kind === 'note',
  )
}

describe('addNoteAction', () => {
  it('adds the signed-in member’s note: in the history with their name, no status change, no event', async () => {
    const issue = await seedIssue(db, orgId, { updatedAt: new Date('2026-01-01T00:00:00Z') })
    signedIn.cookie = member.cookie
    // A browser sends the textarea's line breaks as CRLF; they are stored as newlines.
    const outcome = await addNoteAction(issue.id, null, form('  Seen on Safari only.\r\n<b>not bold</b>  '))
    expect(outcome).toEqual({ ok: true, message: 'Note added to the history.' })
    const notes = await notesOf(issue.id)
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatchObject({
      actorType: 'user',
      actorId: member.id,
      organizationId: orgId,
      metadata: { text: 'Seen on Safari only.\n<b>not bold</b>' },
    })
    const [row] = await db.select().from(issues).where(eq(issues.id, issue.id))
    expect(row!.status).toBe('unresolved')
    expect(row!.updatedAt.toISOString()).toBe('2026-01-01T00:00:00.000Z')
    const events = (await db.select().from(outbox)).filter(
      (e) => (e.payload as { issueId?: string }).issueId === issue.id,
    )
    expect(events).toEqual([])

    const history = await issueHistory(db, orgId, issue.id)
    expect(history.map((entry) => [entry.kind, entry.actor.name, entry.actor.via, entry.note])).toEqual([
      ['note', 'Ada Lovelace', null, 'Seen on Safari only.\n<b>not bold</b>'],
    ])
  })

  it('refuses empty or overlong text and foreign issues with a clear message, storing nothing', async () => {
    const issue = await seedIssue(db, orgId)
    const foreign = await seedIssue(db, (await createOrganization(db, { name: 'Other' })).id)
    signedIn.cookie = member.cookie
    expect(await addNoteAction(issue.id, null, form('   '))).toEqual({
      ok: false,
      error: 'Enter the text of the note.',
    })
    expect(await addNoteAction(issue.id, null, form('x'.repeat(5001)))).toEqual({
      ok: false,
      error: 'A note is limited to 5,000 characters.',
    })
    expect(await addNoteAction(issue.id, null, new FormData())).toEqual({
      ok: false,
      error: 'Enter the text of the note.',
    })
    for (const id of [foreign.id, randomUUID(), 'nope'])
      expect(await addNoteAction(id, null, form('hello'))).toEqual({ ok: false, error: 'Issue not found' })
    expect(await notesOf(issue.id)).toEqual([])
    expect(await notesOf(foreign.id)).toEqual([])
  })

  it('asks to sign in again when the session has ended', async () => {
    const issue = await seedIssue(db, orgId)
    expect(await addNoteAction(issue.id, null, form('hello'))).toEqual({
      ok: false,
      error: 'Your session has ended. Sign in again.',
    })
    expect(await notesOf(issue.id)).toEqual([])
  })
})

describe('issueHistory with notes', () => {
  it('lists notes among the other changes, in order, naming keys and members', async () => {
    const issue = await seedIssue(db, orgId)
    const key = await createKey(db, { organizationId: orgId, type: 'api', write: true, name: 'CI bot' })
    await addIssueNote(
      db,
      { organizationId: orgId, actorType: 'credential', actorId: key.id },
      {
        issueId: issue.id,
        text: 'Reproduced in CI',
      },
    )
    signedIn.cookie = member.cookie
    await addNoteAction(issue.id, null, form('Thanks, fixing it'))
    const history = await issueHistory(db, orgId, issue.id)
    expect(history.map((entry) => [entry.kind, entry.actor.name, entry.actor.via, entry.note])).toEqual([
      ['note', 'CI bot', 'API key', 'Reproduced in CI'],
      ['note', 'Ada Lovelace', null, 'Thanks, fixing it'],
    ])
  })
})
