import { notFound, redirect } from 'next/navigation'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Db } from '@/db/client'
import { InvalidInputError } from '@/lib/errors'
import { memberAction, ownerAction, userAction } from '@/lib/http/actions'
import type { UserWithOrganizations } from '@/lib/members/memberships'

/**
 * The dashboard's action wrapper (lib/http/actions.ts) on its own: the refusals and failure
 * messages every form shows come from here, so their wording is held byte for byte. The
 * database and the session are stand-ins; the integration suites run the real ones.
 */

const session = vi.hoisted(() => ({ user: null as UserWithOrganizations | null }))
const DB = vi.hoisted(() => ({ stand: 'in' }))
const logged = vi.hoisted(() => [] as string[])

vi.mock('@/lib/http/session', () => ({ getSignedInUser: async () => session.user }))
vi.mock('@/lib/db', () => ({ getDb: async () => DB }))
vi.mock('@/lib/error-table', async (original) => ({
  ...(await original<typeof import('@/lib/error-table')>()),
  logUnexpected: (_error: unknown, msg: string) => logged.push(msg),
}))

const user = (role: 'owner' | 'member' | null): UserWithOrganizations => ({
  id: 'u1',
  email: 'a@example.com',
  name: null,
  isOperator: false,
  organizations: role ? [{ id: 'o1', name: 'Org', plan: 'free', role }] : [],
})

beforeEach(() => {
  session.user = null
  logged.length = 0
})

describe('dashboard actions', () => {
  const rename = ownerAction(
    { ownersOnly: 'rename the organization', what: 'rename the organization' },
    async ({ db, organization, actor }, name: string) => ({
      ok: true as const,
      db,
      organization,
      actor,
      name,
    }),
  )

  it('refuse a signed-out caller before the body runs', async () => {
    const body = vi.fn()
    expect(await memberAction({ what: 'x' }, body)()).toEqual({
      ok: false,
      error: 'Your session has ended. Sign in again.',
    })
    session.user = user(null)
    expect(await memberAction({ what: 'x' }, body)()).toEqual({
      ok: false,
      error: 'Your session has ended. Sign in again.',
    })
    expect(body).not.toHaveBeenCalled()
  })

  it('refuse a member an owners-only action, naming what only owners can do', async () => {
    session.user = user('member')
    expect(await rename('New')).toEqual({
      ok: false,
      error: 'Only organization owners can rename the organization.',
    })
  })

  it('hand the body the database, the organization, the actor and the arguments', async () => {
    session.user = user('owner')
    expect(await rename('New')).toEqual({
      ok: true,
      db: DB as unknown as Db,
      organization: { id: 'o1', name: 'Org', plan: 'free', role: 'owner' },
      actor: { organizationId: 'o1', actorType: 'user', actorId: 'u1' },
      name: 'New',
    })
  })

  it('answer a domain error with its own message and anything else with a generic one, logged', async () => {
    session.user = user('member')
    const failing = (error: Error) =>
      memberAction(
        { what: ([paused]) => (paused ? 'pause the rule' : 'resume the rule') },
        async (_ctx, _p: boolean) => {
          throw error
        },
      )
    expect(await failing(new InvalidInputError('Name is required.'))(true)).toEqual({
      ok: false,
      error: 'Name is required.',
    })
    expect(logged).toEqual([])
    expect(await failing(new Error('connection reset'))(false)).toEqual({
      ok: false,
      error: 'Could not resume the rule because of a server error. Try again in a moment.',
    })
    expect(logged).toEqual(['dashboard action failed: resume the rule'])
  })

  it('let a user action run without an organization, with its own failure wording', async () => {
    session.user = user(null)
    const revoke = userAction(
      {
        what: 'disconnect the app',
        failure: () => ({ ok: false, error: 'The app could not be disconnected.' }),
      },
      async ({ user }, id: string) => {
        if (id === 'bad') throw new Error('boom')
        return { ok: true as const, userId: user.id }
      },
    )
    expect(await revoke('c1')).toEqual({ ok: true, userId: 'u1' })
    expect(await revoke('bad')).toEqual({ ok: false, error: 'The app could not be disconnected.' })
  })

  it("pass Next's redirect() and notFound() through instead of answering a failure", async () => {
    session.user = user('member')
    const leave = memberAction({ what: 'leave' }, async (_context, where: string) => {
      if (where === 'missing') notFound()
      redirect(where)
    })
    await expect(leave('/issues')).rejects.toMatchObject({ digest: expect.stringMatching(/^NEXT_REDIRECT;/) })
    await expect(leave('missing')).rejects.toMatchObject({
      digest: expect.stringMatching(/NEXT_HTTP_ERROR_FALLBACK;404/),
    })
    expect(logged).toEqual([])
  })
})
