import { and, count, desc, eq, gt, isNull, sql } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  addNoteAction,
  changeStatusAction,
  linkTicketAction,
  unlinkTicketAction,
} from '@/app/(dashboard)/issues/[issueId]/actions'
import { deleteSavedSearchAction } from '@/app/(dashboard)/sessions/saved/actions'
import {
  changeMemberRoleAction,
  changeNetworkPolicyAction,
  createInvitationAction,
  removeMemberAction,
  renameOrganizationAction,
  revokeInvitationAction,
} from '@/app/(dashboard)/settings/actions'
import { revokeConnectedAppAction } from '@/app/(dashboard)/settings/connected-apps/actions'
import { createKeyAction, revokeKeyAction } from '@/app/(dashboard)/settings/keys/actions'
import {
  createWebhookAction,
  revokeWebhookAction,
  sendTestWebhookAction,
} from '@/app/(dashboard)/settings/webhooks/actions'
import {
  createSignalAction,
  deleteSignalAction,
  pauseSignalAction,
  resumeSignalAction,
} from '@/app/(dashboard)/signals/actions'
import { acceptInvitationAction } from '@/app/invite/[token]/actions'
import {
  credentials,
  ISSUE_STATUSES,
  invitations,
  issueActivities,
  issues,
  memberships,
  organizations,
  signals,
  webhookEndpoints,
} from '@/db/schema'
import { hashToken } from '@/lib/credentials/tokens'
import { useDatabase } from '@/lib/db'
import { ISSUE_NOT_FOUND } from '@/lib/issues/get-issue'
import { RESOLVE_IN_NEXT_RELEASE, RESOLVE_IN_RELEASE } from '@/lib/issues/labels'
import { INVALID_IN_RELEASE, UNSTORABLE_IN_RELEASE, unknownReleaseMessage } from '@/lib/issues/resolution'
import { TICKET_REQUIRED } from '@/lib/issues/update-issue-status'
import { INVALID_INVITATION } from '@/lib/members/invitation-link'
import { useRateLimiter } from '@/lib/ratelimit'
import { upsertRelease } from '@/lib/releases/record-release'
import { SIGNAL_NOT_FOUND } from '@/lib/signals/get-signal'
import { isStorableText } from '@/lib/validation'
import type { Deliverer } from '@/lib/webhooks/deliver'
import { MAX_ACTIVE_ENDPOINTS, MAX_CREATIONS_PER_HOUR } from '@/lib/webhooks/endpoints'
import { WEBHOOK_EVENTS } from '@/lib/webhooks/events'
import { useDeliverer } from '@/lib/webhooks/runtime'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import {
  actionArgument,
  allowAllRateLimiter,
  asActionReceives,
  assertPrototypesClean,
  extraFormEntries,
  type FormValue,
  FUZZ_SEED,
  forbidErrorLogs,
  formDataOf,
  formValue,
  fuzzRuns,
  hostileId,
  hostileString,
  hugeString,
  preview,
  sentText,
  storableText,
  tableDigests,
  withDeadline,
} from '../helpers/fuzz'
import { seedTenant, settleCredentialTouches, type Tenant } from '../helpers/isolation'
import { signedIn } from '../helpers/signed-in'

/**
 * Hostile input at every dashboard server action, called with what Next would hand it: the
 * arguments a client encodes with React's encodeReply, decoded by React's decodeReply (see
 * asActionReceives), so wrong types (numbers, arrays, objects whose toString is no function,
 * Files, Maps) arrive exactly as they would. Each action must answer its documented
 * `{ok: false, error}` (never the generic server-error answer, never a throw: a 500 in the
 * browser), write nothing when it refuses, store exactly the normalised input when it accepts,
 * log no error and pollute no prototype.
 */

// The session of whoever `signedIn.cookie` names (see the helper); everything after it is real.
vi.mock('@/lib/http/session', () => import('../helpers/signed-in'))
// Cache invalidation exists only inside a Next request.
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }))

let database: TestDatabase
let A: Tenant
let B: Tenant
let memberCookie: string
const deliveries: string[] = []

// No refused call may deliver anything; no accepted one here sends a test event either.
const recordingDeliverer: Deliverer = async (request) => {
  deliveries.push(request.url)
  throw new Error(`unexpected webhook delivery to ${request.url}`)
}

/** Alpha's one release: "Resolved in release…" accepts it and refuses any other name. */
const KNOWN_RELEASE = '1.0.0'

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  useDeliverer(recordingDeliverer)
  A = await seedTenant(database.db, 'Alpha')
  await upsertRelease(database.db, { organizationId: A.id, version: KNOWN_RELEASE })
  B = await seedTenant(database.db, 'Beta')
  await settleCredentialTouches(database.db, A)
  await settleCredentialTouches(database.db, B)
  const { encode } = await import('next-auth/jwt')
  const token = await encode({
    token: { sub: A.member.id, email: A.member.email },
    secret: process.env.AUTH_SECRET!,
  })
  memberCookie = `next-auth.session-token=${token}`
})
afterAll(async () => {
  useDeliverer(undefined)
  useDatabase(undefined)
  await database?.close()
})
forbidErrorLogs()
beforeEach(() => {
  useRateLimiter(allowAllRateLimiter)
})
afterEach(() => {
  useRateLimiter(undefined)
  signedIn.cookie = ''
  assertPrototypesClean()
  expect(deliveries).toEqual([])
})

type Who = 'owner' | 'member' | 'nobody'
const WHO: readonly Who[] = ['owner', 'member', 'nobody']
const cookieOf = (who: Who) => (who === 'owner' ? A.owner.cookie : who === 'member' ? memberCookie : '')

const SESSION_ENDED = 'Your session has ended. Sign in again.'
const NOT_MEMBER = 'That person is not a member of this organization.'
const NOT_PENDING =
  'This invitation is no longer pending: it was accepted or revoked already. Reload the page.'
const NO_APP = 'Connected app not found: it may already be disconnected.'
const STATUS_CHOICE = 'Choose a status: Unresolved, In a ticket, Ignored or Resolved.'
const ROLE_CHOICE = 'Role must be one of: owner, member'
const NOT_STORABLE = 'must not contain NUL characters or broken (unpaired) Unicode surrogates'

/** What a server action answers: `{ok: true, ...}` or exactly `{ok: false, error}`. */
type Outcome = { ok: true; [field: string]: unknown } | { ok: false; error: string }

/** Calls an action with the arguments as Next would decode them, within the hang deadline. */
async function callAction(
  label: string,
  who: Who,
  args: readonly unknown[],
  action: (...received: unknown[]) => Promise<unknown>,
): Promise<{ outcome: Outcome; received: unknown[] }> {
  const received = await asActionReceives(args)
  signedIn.cookie = cookieOf(who)
  try {
    const outcome = await withDeadline(label, action(...received))
    expectOutcomeShape(outcome, label)
    return { outcome: outcome as Outcome, received }
  } finally {
    signedIn.cookie = ''
  }
}

function expectOutcomeShape(outcome: unknown, label: string): void {
  expect(typeof outcome, label).toBe('object')
  const answer = outcome as Record<string, unknown>
  expect(typeof answer.ok, label).toBe('boolean')
  if (answer.ok === false) {
    expect(Object.keys(answer).sort(), label).toEqual(['error', 'ok'])
    expect(typeof answer.error, label).toBe('string')
    // The generic answer of an unexpected failure is what a 500 looks like to an action's caller.
    expect(answer.error, label).not.toMatch(/server error|could not be disconnected/i)
  }
}

/**
 * A form field's text: valid often, hostile otherwise (1 MB+ too). FormData holds only
 * well-formed text: an unpaired surrogate appended here reaches the action as U+FFFD.
 */
const textField = (valid: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 4, arbitrary: hostileString },
    { weight: 1, arbitrary: hugeString },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.constantFrom('\u0000', '\ud800', '\udfff', '\u0000\u0000', 'a\udc00'))
        .map(([text, bad]) => `${text}${bad}`),
    },
    { weight: 1, arbitrary: valid.map((text) => `  \t${text}\n `) },
  )

const plainName = (max: number) =>
  fc.stringMatching(new RegExp(`^[A-Za-z0-9][A-Za-z0-9 ._-]{0,${Math.max(0, max - 1)}}$`))

// ---------------------------------------------------------------------------------------
// Actions that take an id

type Kind =
  | 'issue'
  | 'signal'
  | 'key'
  | 'webhook'
  | 'user'
  | 'invitation'
  | 'consent'
  | 'session'
  | 'insight'
  | 'organization'
  | 'savedSearch'

function idsOf(t: Tenant): [Kind, string][] {
  return [
    ...t.issues.map((i) => ['issue', i.id] as [Kind, string]),
    ...t.signals.map((s) => ['signal', s.id] as [Kind, string]),
    ...Object.values(t.keys).map((k) => ['key', k.id] as [Kind, string]),
    ['webhook', t.webhook.endpointId],
    ['webhook', t.webhook.deliveryId],
    ['user', t.owner.id],
    ['user', t.member.id],
    ['invitation', t.invitation.id],
    ['consent', t.consentId],
    ...t.sessions.map((s) => ['session', s.id] as [Kind, string]),
    ...t.insights.map((i) => ['insight', i.id] as [Kind, string]),
    ['organization', t.id],
    ['savedSearch', t.savedSearch.id],
  ]
}

/**
 * A's own ids of the action's kind, wrapped in what is no string: `String([id])` is the id, so
 * an action that coerced its argument would act on A's own row.
 */
function wrappedOwnIds(kind: Kind | null): unknown[] {
  return idsOf(A)
    .filter(([k]) => k === kind)
    .flatMap(([, id]) => [[id], [[id]], new Set([id]), { id }])
}

/** Ids that name nothing this action may touch: all of B's, and A's ids of other kinds. */
function foreignIds(kind: Kind | null): string[] {
  return [
    ...idsOf(B).map(([, id]) => id),
    ...idsOf(A)
      .filter(([k]) => k !== kind)
      .map(([, id]) => id),
    // What A could learn of B's invitation besides its id.
    hashToken(B.invitation.token),
    `svc_inv_${hashToken(B.invitation.token)}`,
  ]
}

const text = (value: unknown) => (typeof value === 'string' ? value : '')
const isOneOf = <T extends string>(list: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (list as readonly string[]).includes(value)

const statusForm = fc
  .tuple(formValue(fc.oneof(fc.constantFrom(...ISSUE_STATUSES), hostileString)), extraFormEntries)
  .map(([status, extra]) => formDataOf({ status }, extra))
const validTicketForm = fc
  .constant(null)
  .map(() =>
    formDataOf({ provider: 'GitHub', url: 'https://github.com/acme/shop/issues/1', identifier: '#1' }),
  )

interface IdAction {
  name: string
  /** The kind of id it takes (A's ids of that kind are left out: they would succeed). */
  kind: Kind | null
  /** Owner-only: a member is refused with `Only organization owners can ${owner}.` */
  owner?: string
  /** What a signed-out caller is told. */
  signedOut?: string
  /** The arguments after the id. */
  rest: fc.Arbitrary<unknown[]>
  call: (...args: unknown[]) => Promise<unknown>
  /** The refusal to a caller allowed to act, from the arguments as the action received them. */
  refusal: (received: unknown[]) => string
}

const ID_ACTIONS: IdAction[] = [
  {
    name: 'changeStatus',
    kind: 'issue',
    rest: fc.tuple(actionArgument, fc.oneof({ weight: 5, arbitrary: statusForm }, actionArgument)),
    call: (id, prev, form) => changeStatusAction(id as string, prev as null, form as FormData),
    refusal: ([, , form]) =>
      isOneOf(ISSUE_STATUSES, sentText(form, 'status')) ? ISSUE_NOT_FOUND : STATUS_CHOICE,
  },
  {
    name: 'linkTicket',
    kind: 'issue',
    rest: fc.tuple(actionArgument, validTicketForm),
    call: (id, prev, form) => linkTicketAction(id as string, prev as null, form as FormData),
    refusal: () => ISSUE_NOT_FOUND,
  },
  {
    name: 'unlinkTicket',
    kind: 'issue',
    rest: fc.constant([]),
    call: (id) => unlinkTicketAction(id as string),
    refusal: () => ISSUE_NOT_FOUND,
  },
  {
    name: 'addNote',
    kind: 'issue',
    rest: fc.tuple(
      actionArgument,
      fc.constant(null).map(() => formDataOf({ text: 'Seen again' })),
    ),
    call: (id, prev, form) => addNoteAction(id as string, prev as null, form as FormData),
    // The text is checked before the issue is looked up.
    refusal: ([, , form]) => noteRule(sentText(form, 'text')) ?? ISSUE_NOT_FOUND,
  },
  {
    name: 'pauseSignal',
    kind: 'signal',
    rest: fc.constant([]),
    call: (id) => pauseSignalAction(id as string),
    refusal: () => SIGNAL_NOT_FOUND,
  },
  {
    name: 'resumeSignal',
    kind: 'signal',
    rest: fc.constant([]),
    call: (id) => resumeSignalAction(id as string),
    refusal: () => SIGNAL_NOT_FOUND,
  },
  {
    name: 'deleteSignal',
    kind: 'signal',
    rest: fc.constant([]),
    call: (id) => deleteSignalAction(id as string),
    refusal: () => SIGNAL_NOT_FOUND,
  },
  {
    name: 'deleteSavedSearch',
    kind: 'savedSearch',
    rest: fc.constant([]),
    call: (id) => deleteSavedSearchAction(id as string),
    refusal: () => 'Saved search not found',
  },
  {
    name: 'revokeKey',
    kind: 'key',
    owner: 'revoke keys',
    rest: fc.constant([]),
    call: (id) => revokeKeyAction(id as string),
    refusal: ([id]) => `Key not found: ${text(id)}`,
  },
  {
    name: 'revokeWebhook',
    kind: 'webhook',
    owner: 'manage webhooks',
    rest: fc.constant([]),
    call: (id) => revokeWebhookAction(id as string),
    refusal: ([id]) => `Webhook endpoint not found: ${text(id)}`,
  },
  {
    name: 'sendTestWebhook',
    kind: 'webhook',
    owner: 'manage webhooks',
    rest: fc.tuple(fc.oneof(fc.constantFrom(...WEBHOOK_EVENTS), actionArgument)),
    call: (id, event) => sendTestWebhookAction(id as string, event as string),
    refusal: ([, event]) =>
      isOneOf(WEBHOOK_EVENTS, event) ? 'Webhook endpoint not found' : `Unknown event type: ${text(event)}`,
  },
  {
    name: 'changeMemberRole',
    kind: 'user',
    owner: 'change roles',
    rest: fc.tuple(fc.oneof(fc.constantFrom('owner', 'member', 'Owner', ' member', 'admin'), actionArgument)),
    call: (id, role) => changeMemberRoleAction(id as string, role as string),
    refusal: ([, role]) => (isOneOf(['owner', 'member'], role) ? NOT_MEMBER : ROLE_CHOICE),
  },
  {
    name: 'removeMember',
    kind: 'user',
    owner: 'remove members',
    rest: fc.constant([]),
    call: (id) => removeMemberAction(id as string),
    refusal: () => NOT_MEMBER,
  },
  {
    name: 'revokeInvitation',
    kind: 'invitation',
    owner: 'revoke invitations',
    rest: fc.constant([]),
    call: (id) => revokeInvitationAction(id as string),
    refusal: () => NOT_PENDING,
  },
  {
    name: 'revokeConnectedApp',
    kind: 'consent',
    rest: fc.constant([]),
    call: (id) => revokeConnectedAppAction(id as string),
    refusal: () => NO_APP,
  },
  {
    name: 'acceptInvitation',
    kind: null,
    signedOut: 'Your session has ended. Sign in again, then open the link again.',
    rest: fc.constant([]),
    call: (token) => acceptInvitationAction(token as string),
    refusal: () => INVALID_INVITATION,
  },
]

describe('dashboard actions that take an id, with ids that name nothing of theirs', () => {
  it('answer their “not found” (or the role/session refusal) and change no row', async () => {
    const cases = fc.constantFrom(...ID_ACTIONS).chain((action) =>
      fc.record({
        action: fc.constant(action),
        who: fc.constantFrom(...WHO),
        args: fc
          .tuple(
            fc.oneof(
              hostileId(foreignIds(action.kind)),
              ...(action.kind && wrappedOwnIds(action.kind).length > 0
                ? [fc.constantFrom(...wrappedOwnIds(action.kind))]
                : []),
              fc.constantFrom('svc_inv_', `svc_inv_${'x'.repeat(43)}`, `svc_inv_${'x'.repeat(300)}`),
            ),
            action.rest,
          )
          .map(([id, rest]) => [id, ...rest]),
      }),
    )
    await fc.assert(
      fc.asyncProperty(cases, async ({ action, who, args }) => {
        const before = await tableDigests(database.db)
        const { outcome, received } = await callAction(action.name, who, args, action.call)
        const expected =
          who === 'nobody'
            ? (action.signedOut ?? SESSION_ENDED)
            : who === 'member' && action.owner
              ? `Only organization owners can ${action.owner}.`
              : action.refusal(received)
        expect(outcome, action.name).toEqual({ ok: false, error: expected })
        expect(await tableDigests(database.db), action.name).toEqual(before)
        assertPrototypesClean()
      }),
      fuzzRuns(300),
    )
  })
})

describe('dashboard actions that take an id, with their own ids wrapped in what is no string', () => {
  it('refuse every one of them like an unknown id, for every caller, and change no row', async () => {
    // All of them, not a sample: each (action, caller, id, wrapper) is one case.
    const before = await tableDigests(database.db)
    let calls = 0
    for (const action of ID_ACTIONS)
      for (const who of WHO)
        for (const id of wrappedOwnIds(action.kind)) {
          const rest = fc.sample(action.rest, { seed: FUZZ_SEED, numRuns: 1 })[0]!
          const { outcome, received } = await callAction(action.name, who, [id, ...rest], action.call)
          const expected =
            who === 'nobody'
              ? (action.signedOut ?? SESSION_ENDED)
              : who === 'member' && action.owner
                ? `Only organization owners can ${action.owner}.`
                : action.refusal(received)
          expect(outcome, `${action.name} ${who} ${preview(id)}`).toEqual({ ok: false, error: expected })
          calls++
        }
    expect(calls).toBeGreaterThan(200)
    expect(await tableDigests(database.db)).toEqual(before)
  })
})

// ---------------------------------------------------------------------------------------
// Actions that take a form

/**
 * What the action must do with the text it reads from the form (`undefined`: the field was
 * not sent as text): `accept`, or refuse with exactly `refuse`; `either` when only the
 * implementation can tell (then a refusal must be one of its candidates).
 */
type Verdict = { accept: true } | { refuse: string } | { either: readonly (string | RegExp)[] }

interface FormAction {
  name: string
  owner?: string
  fields: Record<string, fc.Arbitrary<FormValue>>
  /** Every field valid at once: rare among hostile fields, so generated on its own too. */
  valid: Record<string, fc.Arbitrary<FormValue>>
  call: (previous: unknown, form: unknown) => Promise<unknown>
  /** The verdict, from the text of each field as the action reads it. */
  verdict: (texts: Record<string, string | undefined>, form: unknown) => Promise<Verdict> | Verdict
  /** For an accepted call: the stored row holds exactly the normalised input. */
  stored: (outcome: Outcome, texts: Record<string, string | undefined>, form: unknown) => Promise<void>
}

/** zod measures a string's length in code points (a lone surrogate counts as one). */
const codePoints = (value: string) => [...value].length

/** The first rule a trimmed text breaks, in the order the schema checks them. */
function lengthRule(
  value: string,
  rules: { min: number; max: number; empty: string; long: string; label: string },
): string | null {
  const length = codePoints(value)
  if (length < rules.min) return rules.empty
  if (length > rules.max) return rules.long
  if (!storableText(value)) return `${rules.label} ${NOT_STORABLE}`
  return null
}

/** A note's text as the action stores it: CR LF and lone CR read as newlines, then trimmed. */
const noteText = (text: string | undefined) =>
  (text ?? '').replaceAll('\r\n', '\n').replaceAll('\r', '\n').trim()

/** The rule a note's text breaks, if any (lib/issues/issue-notes.ts). */
function noteRule(text: string | undefined): string | null {
  return lengthRule(noteText(text), {
    min: 1,
    max: 5000,
    empty: 'Enter the text of the note.',
    long: 'A note is limited to 5,000 characters.',
    label: 'The note',
  })
}

const SURE_HOOK = /^https:\/\/hooks-[a-z]{1,8}\.example\.com\/[a-z0-9/]{0,20}$/
const SURE_EMAIL = /^[a-z0-9]{1,20}@[a-z]{1,12}\.(com|org)$/

/** A key word as typed: mostly valid, sometimes with a space, a dot, non-ASCII or too long. */
const redactWord = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/) },
  { weight: 1, arbitrary: fc.constantFrom('card number', 'a.b', 'ключ', ' ', 'x'.repeat(65)) },
)

/**
 * The key words the network policy stores (lib/orgs/network-policy-input.ts), or the pattern of
 * the refusal: split on commas and line breaks, trimmed, blanks dropped, lower-cased, unique.
 */
function redactKeysOracle(text: string): string[] | string {
  if (text.length > 50 * 72) return 'too long'
  const words: string[] = []
  for (const part of text.split(/[,\r\n]/)) {
    const word = part.trim()
    if (word === '') continue
    if (word.length > 64) return 'is longer than 64 characters'
    if (!/^[A-Za-z0-9_-]+$/.test(word)) return 'may hold only letters, digits, _ and -'
    if (!words.includes(word.toLowerCase())) words.push(word.toLowerCase())
  }
  return words.length > 50 ? '^At most 50 redacted key words' : words
}

const FORM_ACTIONS: FormAction[] = [
  {
    name: 'renameOrganization',
    owner: 'rename the organization',
    fields: { name: formValue(textField(plainName(100))) },
    valid: { name: plainName(100) },
    call: (previous, form) => renameOrganizationAction(previous as null, form as FormData),
    verdict: ({ name }) => {
      const broken = lengthRule((name ?? '').trim(), {
        min: 1,
        max: 100,
        empty: 'Organization name must not be empty',
        long: 'Organization name must be at most 100 characters',
        label: 'Organization name',
      })
      return broken ? { refuse: broken } : { accept: true }
    },
    stored: async (outcome, { name }) => {
      const [org] = await database.db.select().from(organizations).where(eq(organizations.id, A.id))
      expect(org!.name).toBe(name!.trim())
      expect(outcome).toEqual({ ok: true, message: `The organization is now called ${name!.trim()}.` })
    },
  },
  {
    name: 'changeNetworkPolicy',
    owner: 'change the network details policy',
    fields: {
      policy: formValue(textField(fc.constantFrom('redact', 'drop', ' drop ', 'Drop', 'keep'))),
      redactKeys: formValue(textField(fc.array(redactWord, { maxLength: 60 }).map((w) => w.join(', ')))),
    },
    valid: {
      policy: fc.constantFrom('redact', 'drop'),
      redactKeys: fc
        .array(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), { maxLength: 50 })
        .map((w) => w.join('\n')),
    },
    call: (previous, form) => changeNetworkPolicyAction(previous as null, form as FormData),
    verdict: ({ policy, redactKeys }) => {
      if (!['redact', 'drop'].includes((policy ?? '').trim()))
        return { refuse: 'Network details policy must be one of: redact, drop' }
      const words = redactKeysOracle(redactKeys ?? '')
      return typeof words === 'string' ? { either: [new RegExp(words)] } : { accept: true }
    },
    stored: async (outcome, { policy, redactKeys }) => {
      const [org] = await database.db.select().from(organizations).where(eq(organizations.id, A.id))
      const words = redactKeysOracle(redactKeys ?? '') as string[]
      expect(org).toMatchObject({ networkDetails: policy!.trim(), networkRedactKeys: words })
      expect(outcome).toMatchObject({ ok: true, message: expect.stringMatching(/^Network details: /) })
    },
  },
  {
    name: 'createInvitation',
    owner: 'invite people',
    fields: {
      email: formValue(
        fc.oneof(
          textField(fc.stringMatching(SURE_EMAIL)),
          fc.constant(null).map(() => A.owner.email),
          fc.constant(null).map(() => ` ${A.member.email.toUpperCase()} `),
          fc.constant(null).map(() => A.invitation.email),
        ),
      ),
      role: formValue(fc.oneof(fc.constantFrom('owner', 'member', 'Owner', 'admin', ''), hostileString)),
    },
    valid: { email: fc.stringMatching(SURE_EMAIL), role: fc.constantFrom('owner', 'member') },
    call: (previous, form) => createInvitationAction(previous as null, form as FormData),
    verdict: ({ email, role }) => {
      const address = (email ?? '').trim().toLowerCase()
      const roleText = role ?? 'member'
      const badEmail = ['E-mail must be a valid address', 'E-mail must be at most 254 characters']
      if (!SURE_EMAIL.test(address)) {
        const surelyBad = !address.includes('@') || address.length > 254 || !storableText(address)
        const existing = [A.owner.email, A.member.email].includes(address)
        if (surelyBad) return { either: badEmail }
        if (existing)
          return isOneOf(['owner', 'member'], roleText)
            ? { refuse: `${address} is already a member of this organization.` }
            : { refuse: ROLE_CHOICE }
        return { either: [...badEmail, ROLE_CHOICE] }
      }
      if (!isOneOf(['owner', 'member'], roleText)) return { refuse: ROLE_CHOICE }
      return { accept: true }
    },
    stored: async (outcome, { email, role }) => {
      const address = email!.trim().toLowerCase()
      expect(outcome).toMatchObject({ ok: true, email: address, role: role ?? 'member', expiresInDays: 7 })
      const link = (outcome as unknown as { url: string }).url
      expect(link).toMatch(/^http:\/\/localhost:3000\/invite\/svc_inv_[A-Za-z0-9_-]+$/)
      const token = decodeURIComponent(link.split('/invite/')[1]!)
      const [row] = await database.db
        .select()
        .from(invitations)
        .where(eq(invitations.tokenHash, hashToken(token)))
      expect(row).toMatchObject({ organizationId: A.id, email: address, role: role ?? 'member' })
      expect(row!.acceptedAt).toBeNull()
      expect(row!.revokedAt).toBeNull()
    },
  },
  {
    name: 'createKey',
    owner: 'create keys',
    fields: {
      type: formValue(fc.oneof(fc.constantFrom('ingest', 'api', 'mcp', 'Ingest', ' api'), hostileString)),
      name: formValue(textField(plainName(64))),
      allowStatusUpdates: formValue(fc.oneof(fc.constantFrom('on', 'off', 'true', ''), hostileString)),
    },
    valid: {
      type: fc.constantFrom('ingest', 'api'),
      name: plainName(64),
      allowStatusUpdates: fc.constantFrom('on', 'off'),
    },
    call: (previous, form) => createKeyAction(previous as null, form as FormData),
    verdict: ({ type, name }) => {
      const trimmed = (name ?? '').trim()
      if (!storableText(trimmed)) return { refuse: `Key name ${NOT_STORABLE}` }
      if (!isOneOf(['ingest', 'api'], type))
        return {
          refuse:
            'Only ingest keys and Data API keys can be created here. AI agents connect through OAuth (Settings → MCP).',
        }
      const broken = lengthRule(trimmed, {
        min: 1,
        max: 64,
        empty: 'Key name must not be empty',
        long: 'Key name must be at most 64 characters',
        label: 'Key name',
      })
      return broken ? { refuse: broken } : { accept: true }
    },
    stored: async (outcome, { type, name, allowStatusUpdates }) => {
      const scopes =
        type === 'ingest'
          ? ['ingest']
          : allowStatusUpdates === 'on'
            ? ['read:service', 'write:issues']
            : ['read:service']
      expect(outcome).toMatchObject({ ok: true, type, name: name!.trim(), scopes })
      const key = (outcome as unknown as { key: string }).key
      const [row] = await database.db
        .select()
        .from(credentials)
        .where(eq(credentials.tokenHash, hashToken(key)))
      expect(row).toMatchObject({ organizationId: A.id, kind: type, name: name!.trim(), scopes })
    },
  },
  {
    name: 'createWebhook',
    owner: 'manage webhooks',
    fields: {
      name: formValue(textField(plainName(64))),
      url: formValue(
        textField(
          fc.oneof(
            fc.stringMatching(SURE_HOOK),
            fc.constantFrom(
              'http://hooks.example.com/x',
              'https://user:pw@hooks.example.com/',
              'https://hooks.example.com:22/',
              'javascript:alert(1)',
              'https://',
            ),
          ),
        ),
      ),
      events: fc.oneof(
        fc.subarray([...WEBHOOK_EVENTS], { minLength: 1 }).map((events) => events as FormValue),
        formValue(fc.oneof(fc.constantFrom(...WEBHOOK_EVENTS, 'issue.deleted', ''), hostileString)),
      ),
    },
    valid: {
      name: plainName(64),
      url: fc.stringMatching(SURE_HOOK),
      events: fc.subarray([...WEBHOOK_EVENTS], { minLength: 1 }),
    },
    call: (previous, form) => createWebhookAction(previous as null, form as FormData),
    verdict: async ({ name, url }, form) => {
      const cleanName = (name ?? '').trim()
      const cleanUrl = (url ?? '').trim()
      if (!storableText(cleanName)) return { refuse: `Webhook name ${NOT_STORABLE}` }
      if (!storableText(cleanUrl)) return { refuse: `Webhook URL ${NOT_STORABLE}` }
      if (cleanName === '') return { refuse: 'Name is required.' }
      if (cleanName.length > 64) return { refuse: 'Name must be at most 64 characters.' }
      if (cleanUrl.length > 2048) return { refuse: 'URL must be at most 2048 characters.' }
      const sureUrl = SURE_HOOK.test(cleanUrl)
      const events = [
        ...new Set(
          form instanceof FormData ? form.getAll('events').filter((e) => typeof e === 'string') : [],
        ),
      ]
      const unknown = events.filter((e) => !isOneOf(WEBHOOK_EVENTS, e))
      const eventRule =
        events.length === 0
          ? 'Choose at least one event.'
          : unknown.length > 0
            ? `Unknown event type: ${unknown.join(', ')}`
            : null
      if (!sureUrl) return { either: [/^URL refused: .+\.$/, ...(eventRule ? [eventRule] : [])] }
      if (eventRule) return { refuse: eventRule }
      const [active] = await database.db
        .select({ n: count() })
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.organizationId, A.id), isNull(webhookEndpoints.revokedAt)))
      if (active!.n >= MAX_ACTIVE_ENDPOINTS)
        return {
          refuse: `This organization already has ${MAX_ACTIVE_ENDPOINTS} active webhook endpoints, the maximum. Revoke one to add another.`,
        }
      const [recent] = await database.db
        .select({ n: count() })
        .from(webhookEndpoints)
        .where(
          and(
            eq(webhookEndpoints.organizationId, A.id),
            gt(webhookEndpoints.createdAt, sql`now() - interval '1 hour'`),
          ),
        )
      if (recent!.n >= MAX_CREATIONS_PER_HOUR)
        return {
          either: [/^At most 5 webhook endpoints can be created per hour\. Try again in \d+ minute\(s\)\.$/],
        }
      return { accept: true }
    },
    stored: async (outcome, { name, url }, form) => {
      expect(outcome).toMatchObject({
        ok: true,
        name: name!.trim(),
        secret: expect.stringMatching(/^whsec_/),
      })
      const events = [...new Set((form as FormData).getAll('events'))]
      const [row] = await database.db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.organizationId, A.id), eq(webhookEndpoints.name, name!.trim())))
      expect(row).toMatchObject({ url: url!.trim(), events })
      // Keep room for the next accepted creation: revoke it again (outside the action under test).
      await database.db
        .update(webhookEndpoints)
        .set({ revokedAt: new Date() })
        .where(eq(webhookEndpoints.id, row!.id))
    },
  },
  {
    name: 'createSignal',
    fields: {
      name: formValue(textField(plainName(100))),
      prompt: formValue(textField(plainName(2000).map((p) => `failed ${p}`))),
    },
    valid: { name: plainName(100), prompt: plainName(2000).map((p) => `failed ${p}`) },
    call: (previous, form) => createSignalAction(previous as null, form as FormData),
    verdict: ({ name, prompt }) => {
      const broken =
        lengthRule((name ?? '').trim(), {
          min: 1,
          max: 100,
          empty: 'Signal name must not be empty',
          long: 'Signal name must be at most 100 characters',
          label: 'Signal name',
        }) ??
        lengthRule((prompt ?? '').trim(), {
          min: 3,
          max: 2000,
          empty: 'Signal prompt must be at least 3 characters',
          long: 'Signal prompt must be at most 2000 characters',
          label: 'Signal prompt',
        })
      return broken ? { refuse: broken } : { accept: true }
    },
    stored: async (outcome, { name, prompt }) => {
      expect(outcome).toMatchObject({ ok: true, signalId: expect.any(String) })
      const [row] = await database.db
        .select()
        .from(signals)
        .where(eq(signals.id, (outcome as unknown as { signalId: string }).signalId))
      expect(row).toMatchObject({
        organizationId: A.id,
        name: name!.trim(),
        prompt: prompt!.trim(),
        status: 'active',
      })
    },
  },
  {
    name: 'changeStatus (own issue)',
    fields: {
      status: formValue(
        fc.oneof(
          fc.constantFrom(...ISSUE_STATUSES, 'Resolved', 'open', RESOLVE_IN_RELEASE, RESOLVE_IN_NEXT_RELEASE),
          hostileString,
        ),
      ),
      // Read only with "Resolved in release…" (issue 36).
      inRelease: formValue(textField(fc.constantFrom(KNOWN_RELEASE, '2.0.0', 'x'.repeat(201)))),
    },
    valid: { status: fc.constantFrom(...ISSUE_STATUSES, RESOLVE_IN_NEXT_RELEASE) },
    call: (previous, form) => changeStatusAction(A.issues[1]!.id, previous as null, form as FormData),
    verdict: async ({ status, inRelease }) => {
      if (status === RESOLVE_IN_NEXT_RELEASE) return { accept: true }
      if (status === RESOLVE_IN_RELEASE) {
        const release = inRelease ?? ''
        if (release === '') return { refuse: 'Choose the release that contains the fix.' }
        if (release.length > 200) return { refuse: INVALID_IN_RELEASE }
        if (!isStorableText(release)) return { refuse: UNSTORABLE_IN_RELEASE }
        return release === KNOWN_RELEASE ? { accept: true } : { refuse: unknownReleaseMessage(release) }
      }
      if (!isOneOf(ISSUE_STATUSES, status)) return { refuse: STATUS_CHOICE }
      // The dashboard marks an issue In a ticket only when it has one (issue 34).
      const [row] = await database.db.select().from(issues).where(eq(issues.id, A.issues[1]!.id))
      return status === 'ticket_created' && row!.status !== status && !row!.ticketUrl
        ? { refuse: TICKET_REQUIRED }
        : { accept: true }
    },
    stored: async (_outcome, { status, inRelease }) => {
      const [row] = await database.db.select().from(issues).where(eq(issues.id, A.issues[1]!.id))
      if (status === RESOLVE_IN_RELEASE)
        expect(row).toMatchObject({ status: 'resolved', resolvedInRelease: inRelease })
      else if (status === RESOLVE_IN_NEXT_RELEASE)
        expect(row).toMatchObject({ status: 'resolved', resolvedInNextRelease: true })
      else expect(row!.status).toBe(status)
    },
  },
  {
    name: 'linkTicket (own issue)',
    fields: {
      provider: formValue(textField(plainName(64))),
      url: formValue(
        textField(
          fc.oneof(
            fc.webUrl({ validSchemes: ['https', 'http'] }),
            fc.constantFrom('ftp://x.example/1', 'github.com/a/b', 'https://', 'javascript:alert(1)'),
          ),
        ),
      ),
      identifier: formValue(textField(plainName(128))),
    },
    valid: {
      provider: plainName(64),
      url: fc.webUrl({ validSchemes: ['https', 'http'] }),
      identifier: plainName(128),
    },
    call: (previous, form) => linkTicketAction(A.issues[0]!.id, previous as null, form as FormData),
    verdict: ({ provider, url, identifier }) => {
      const p = (provider ?? '').trim()
      const u = (url ?? '').trim()
      const i = (identifier ?? '').trim()
      const providerRule =
        p === ''
          ? 'Enter the ticket provider, e.g. GitHub, Linear or Jira.'
          : codePoints(p) > 64
            ? 'The provider is limited to 64 characters.'
            : !storableText(p)
              ? `The provider ${NOT_STORABLE}`
              : null
      if (providerRule) return { refuse: providerRule }
      const webUrl =
        'The ticket URL must be a full http:// or https:// address, e.g. https://github.com/acme/shop/issues/12.'
      if (u === '') return { refuse: 'Enter the ticket URL.' }
      if (codePoints(u) > 2048) return { refuse: 'The ticket URL is limited to 2048 characters.' }
      if (!storableText(u)) return { refuse: `The ticket URL ${NOT_STORABLE}` }
      let parsed: URL | null = null
      try {
        parsed = new URL(u)
      } catch {
        parsed = null
      }
      if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.hostname === '')
        return { refuse: webUrl }
      if (codePoints(i) > 128) return { refuse: 'The identifier is limited to 128 characters.' }
      if (!storableText(i)) return { refuse: `The identifier ${NOT_STORABLE}` }
      return { accept: true }
    },
    stored: async (_outcome, { provider, url, identifier }) => {
      const [row] = await database.db.select().from(issues).where(eq(issues.id, A.issues[0]!.id))
      expect(row).toMatchObject({
        ticketProvider: provider!.trim(),
        ticketUrl: url!.trim(),
        ticketIdentifier: (identifier ?? '').trim() || null,
      })
    },
  },
  {
    name: 'addNote (own issue)',
    fields: { text: formValue(textField(plainName(5000))) },
    valid: { text: plainName(5000) },
    call: (previous, form) => addNoteAction(A.issues[0]!.id, previous as null, form as FormData),
    verdict: ({ text }) => {
      const broken = noteRule(text)
      return broken ? { refuse: broken } : { accept: true }
    },
    stored: async (outcome, { text }) => {
      expect(outcome).toEqual({ ok: true, message: 'Note added to the history.' })
      const [latest] = await database.db
        .select()
        .from(issueActivities)
        .where(eq(issueActivities.issueId, A.issues[0]!.id))
        .orderBy(desc(issueActivities.createdAt))
        .limit(1)
      expect(latest).toMatchObject({ kind: 'note', actorType: 'user', metadata: { text: noteText(text) } })
    },
  },
]

describe('dashboard actions that take a form, with hostile fields', () => {
  it.each(FORM_ACTIONS.map((action) => [action.name, action] as const))(
    '%s: accepts exactly the valid input and stores it; refuses the rest with its rule, writing nothing',
    async (_name, action) => {
      const forms = fc.oneof(
        {
          weight: 6,
          arbitrary: fc
            .tuple(fc.record(action.fields), extraFormEntries)
            .map(([fields, extra]) => formDataOf(fields, extra) as unknown),
        },
        { weight: 2, arbitrary: fc.record(action.valid).map((fields) => formDataOf(fields) as unknown) },
        // Not a form at all: every field is missing.
        { weight: 1, arbitrary: actionArgument },
      )
      let accepted = 0
      let refused = 0
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...WHO), actionArgument, forms, async (who, previous, form) => {
          const before = await tableDigests(database.db)
          const { outcome, received } = await callAction(action.name, who, [previous, form], action.call)
          const sent = received[1]
          const texts = Object.fromEntries(
            Object.keys(action.fields).map((name) => [name, sentText(sent, name)]),
          )
          const refusedBy =
            who === 'nobody'
              ? SESSION_ENDED
              : who === 'member' && action.owner
                ? `Only organization owners can ${action.owner}.`
                : null
          const verdict: Verdict = refusedBy ? { refuse: refusedBy } : await action.verdict(texts, sent)
          const why = preview({ who, texts }, 400)
          if ('accept' in verdict) expect(outcome, why).toMatchObject({ ok: true })
          else if ('refuse' in verdict) expect(outcome, why).toEqual({ ok: false, error: verdict.refuse })
          if (outcome.ok) {
            accepted++
            expect('refuse' in verdict, why).toBe(false)
            await action.stored(outcome, texts, sent)
          } else {
            refused++
            if ('either' in verdict)
              expect(
                verdict.either.some((rule) =>
                  typeof rule === 'string' ? outcome.error === rule : rule.test(outcome.error),
                ),
                `${why} → ${outcome.error}`,
              ).toBe(true)
            expect(await tableDigests(database.db), why).toEqual(before)
          }
          assertPrototypesClean()
        }),
        fuzzRuns(120),
      )
      // Not vacuous: both branches were taken.
      expect(accepted, 'accepted').toBeGreaterThan(0)
      expect(refused, 'refused').toBeGreaterThan(0)
    },
  )
})

// ---------------------------------------------------------------------------------------
// Faults these properties found, each fixed; kept as named cases so they stay fixed.

describe('regressions', () => {
  const action = (name: string) => ID_ACTIONS.find((a) => a.name === name)!

  it('an object whose toString is no function ({"toString": 1}) is no id: every id action answers its refusal', async () => {
    // Was: String(value) threw a TypeError, caught as a "server error" (logged) in most actions
    // and thrown out of removeMember and sendTestWebhook (a 500).
    for (const trap of [{ toString: 1 }, { valueOf: 'x', toString: null }]) {
      for (const candidate of ID_ACTIONS) {
        const args: unknown[] = [
          trap,
          ...(candidate.name === 'changeStatus' ? [null, formDataOf({ status: 'resolved' })] : []),
        ]
        if (candidate.name === 'linkTicket')
          args.push(null, formDataOf({ provider: 'GitHub', url: 'https://x.dev/1' }))
        if (candidate.name === 'sendTestWebhook') args.push('issue.created')
        if (candidate.name === 'changeMemberRole') args.push('owner')
        const { outcome, received } = await callAction(candidate.name, 'owner', args, candidate.call)
        expect(outcome, candidate.name).toEqual({ ok: false, error: candidate.refusal(received) })
      }
      const { outcome } = await callAction(
        'sendTestWebhook',
        'owner',
        [A.webhook.endpointId, trap],
        action('sendTestWebhook').call,
      )
      expect(outcome).toEqual({ ok: false, error: 'Unknown event type: ' })
      const form = await callAction('renameOrganization', 'owner', [null, trap], (p, f) =>
        renameOrganizationAction(p as null, f as FormData),
      )
      expect(form.outcome).toEqual({ ok: false, error: 'Organization name must not be empty' })
    }
  })

  it('a member’s own id inside an array is not “leave the organization”', async () => {
    // Was: String([id]) === id, so the member was removed.
    const { outcome } = await callAction(
      'removeMember',
      'member',
      [[A.member.id]],
      action('removeMember').call,
    )
    expect(outcome).toEqual({ ok: false, error: 'Only organization owners can remove members.' })
    const { outcome: role } = await callAction(
      'changeMemberRole',
      'owner',
      [[A.member.id], ['owner']],
      action('changeMemberRole').call,
    )
    expect(role).toEqual({ ok: false, error: ROLE_CHOICE })
    const [org] = await database.db.select().from(organizations).where(eq(organizations.id, A.id))
    expect(org).toBeDefined()
    const members = await database.db.select().from(memberships).where(eq(memberships.organizationId, A.id))
    expect(members.map((m) => [m.userId, m.role]).sort()).toEqual(
      [
        [A.owner.id, 'owner'],
        [A.member.id, 'member'],
      ].sort(),
    )
  })

  it('a File where text belongs is no text: nothing named "[object File]" is created', async () => {
    // Was: String(file) === '[object File]', a valid name for a key, a signal, a webhook and the organization.
    const file = new File(['x'], 'name.txt')
    const before = await tableDigests(database.db)
    const cases: [string, (p: unknown, f: unknown) => Promise<unknown>, FormData, string][] = [
      [
        'createKey',
        (p, f) => createKeyAction(p as null, f as FormData),
        formDataOf({ type: 'api', name: file }),
        'Key name must not be empty',
      ],
      [
        'createSignal',
        (p, f) => createSignalAction(p as null, f as FormData),
        formDataOf({ name: file, prompt: 'failed checkout' }),
        'Signal name must not be empty',
      ],
      [
        'createWebhook',
        (p, f) => createWebhookAction(p as null, f as FormData),
        formDataOf({ name: file, url: 'https://hooks.example.com/x', events: 'issue.created' }),
        'Name is required.',
      ],
      [
        'renameOrganization',
        (p, f) => renameOrganizationAction(p as null, f as FormData),
        formDataOf({ name: file }),
        'Organization name must not be empty',
      ],
      [
        'linkTicket',
        (p, f) => linkTicketAction(A.issues[1]!.id, p as null, f as FormData),
        formDataOf({ provider: file, url: 'https://x.dev/1' }),
        'Enter the ticket provider, e.g. GitHub, Linear or Jira.',
      ],
    ]
    for (const [name, call, form, error] of cases) {
      const { outcome } = await callAction(name, 'owner', [null, form], call)
      expect(outcome, name).toEqual({ ok: false, error })
    }
    expect(await tableDigests(database.db)).toEqual(before)
  })

  it('a NUL in stored text is refused with the field’s rule', async () => {
    // Was: Postgres refused the row, answered as a logged "server error". (Unpaired surrogates
    // cannot arrive in a form: FormData turns them into U+FFFD before the action sees them.)
    const before = await tableDigests(database.db)
    for (const bad of ['a\u0000b', '\u0000', 'x\u0000\u0000']) {
      const cases: [string, (p: unknown, f: unknown) => Promise<unknown>, FormData, string][] = [
        [
          'renameOrganization',
          (p, f) => renameOrganizationAction(p as null, f as FormData),
          formDataOf({ name: bad }),
          `Organization name ${NOT_STORABLE}`,
        ],
        [
          'createSignal name',
          (p, f) => createSignalAction(p as null, f as FormData),
          formDataOf({ name: bad, prompt: 'failed checkout' }),
          `Signal name ${NOT_STORABLE}`,
        ],
        [
          'createSignal prompt',
          (p, f) => createSignalAction(p as null, f as FormData),
          formDataOf({ name: 'Checkout', prompt: `failed ${bad}` }),
          `Signal prompt ${NOT_STORABLE}`,
        ],
        [
          'createKey',
          (p, f) => createKeyAction(p as null, f as FormData),
          formDataOf({ type: 'ingest', name: bad }),
          `Key name ${NOT_STORABLE}`,
        ],
        [
          'createWebhook name',
          (p, f) => createWebhookAction(p as null, f as FormData),
          formDataOf({ name: bad, url: 'https://hooks.example.com/x', events: 'issue.created' }),
          `Webhook name ${NOT_STORABLE}`,
        ],
        [
          'createWebhook url',
          (p, f) => createWebhookAction(p as null, f as FormData),
          formDataOf({ name: 'Hook', url: `https://hooks.example.com/${bad}`, events: 'issue.created' }),
          `Webhook URL ${NOT_STORABLE}`,
        ],
        [
          'linkTicket provider',
          (p, f) => linkTicketAction(A.issues[1]!.id, p as null, f as FormData),
          formDataOf({ provider: bad, url: 'https://x.dev/1' }),
          `The provider ${NOT_STORABLE}`,
        ],
        [
          'linkTicket url',
          (p, f) => linkTicketAction(A.issues[1]!.id, p as null, f as FormData),
          formDataOf({ provider: 'GitHub', url: `https://x.dev/${bad}` }),
          `The ticket URL ${NOT_STORABLE}`,
        ],
        [
          'linkTicket identifier',
          (p, f) => linkTicketAction(A.issues[1]!.id, p as null, f as FormData),
          formDataOf({ provider: 'GitHub', url: 'https://x.dev/1', identifier: bad }),
          `The identifier ${NOT_STORABLE}`,
        ],
      ]
      for (const [name, call, form, error] of cases) {
        const { outcome } = await callAction(name, 'owner', [null, form], call)
        expect(outcome, `${name} ${JSON.stringify(bad)}`).toEqual({ ok: false, error })
      }
    }
    expect(await tableDigests(database.db)).toEqual(before)
  })
})
