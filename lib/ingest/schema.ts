import { z } from 'zod'
import { AUTOMATION_KINDS } from '@/db/schema'
import { isStorableText } from '@/lib/validation'

/**
 * The replay batch of the ingest API (spec: "Replay batch"). Events are opaque beyond the
 * three fields every rrweb event has; the stored batch is the request body itself.
 */
// The range of a JavaScript Date: anything outside cannot be stored or shown as a time.
const MAX_EPOCH_MS = 8.64e15

const RrwebEvent = z
  .object({
    timestamp: z
      .number({ error: 'timestamp must be a number (epoch milliseconds)' })
      .min(0, 'timestamp must be epoch milliseconds')
      .max(MAX_EPOCH_MS, 'timestamp must be epoch milliseconds'),
    type: z.number({ error: 'type must be an integer (rrweb event type)' }).int('type must be an integer'),
    data: z.unknown().refine((value) => value !== undefined, 'data is required'),
  })
  .loose()

// isStorableText's rule (lib/validation), worded for the details of an ingest refusal.
const NOT_STORABLE = 'must not contain NUL characters or unpaired UTF-16 surrogates'

// Ids are indexed (a session's id is unique per organization): long values cannot be.
const MAX_ID_LENGTH = 256
const MAX_TEXT_LENGTH = 8192
// A release names a build (a commit, a version): short, and indexed with each source map.
export const MAX_RELEASE_LENGTH = 200
export const MAX_DEBUG_IDS = 100
const MAX_DEBUG_ID_URL_LENGTH = 2048
// A fixed-length pattern: no backtracking whatever the input.
const DEBUG_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

const text = (field: string, max = MAX_TEXT_LENGTH) =>
  z
    .string({ error: `${field} must be a string` })
    .max(max, `${field} must be at most ${max} characters`)
    .refine(isStorableText, `${field} ${NOT_STORABLE}`)
const nonEmpty = (field: string) => text(field, MAX_ID_LENGTH).min(1, `${field} must not be empty`)

const MAX_PROPERTIES_DEPTH = 20
const MAX_PROPERTIES_NODES = 10_000

/**
 * `user.properties` is stored as jsonb: bounded in depth (serialising a deeply nested value
 * overflows the stack) and size, with every key and string storable. Walked iteratively so
 * that the check itself cannot overflow.
 */
function propertiesProblem(value: Record<string, unknown>): string | null {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }]
  let nodes = 0
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!
    if (++nodes > MAX_PROPERTIES_NODES)
      return `user.properties must hold at most ${MAX_PROPERTIES_NODES} values`
    if (typeof current === 'string') {
      if (!isStorableText(current)) return `user.properties values ${NOT_STORABLE}`
      continue
    }
    if (typeof current !== 'object' || current === null) continue
    if (depth > MAX_PROPERTIES_DEPTH)
      return `user.properties must be nested at most ${MAX_PROPERTIES_DEPTH} levels deep`
    for (const [key, child] of Object.entries(current)) {
      if (!isStorableText(key)) return `user.properties keys ${NOT_STORABLE}`
      stack.push({ value: child, depth: depth + 1 })
    }
  }
  return null
}
const epochMs = (field: string) =>
  z
    .number({ error: `${field} must be a number (epoch milliseconds)` })
    .min(0, `${field} must be epoch milliseconds`)
    .max(MAX_EPOCH_MS, `${field} must be epoch milliseconds`)

export const ReplayBatch = z.object({
  session: z.object({
    id: nonEmpty('session.id'),
    windowId: nonEmpty('session.windowId'),
    startedAt: epochMs('session.startedAt'),
    lastActivityAt: epochMs('session.lastActivityAt'),
    url: text('session.url'),
  }),
  user: z.object({
    anonymousId: nonEmpty('user.anonymousId'),
    id: text('user.id', MAX_ID_LENGTH).nullable().optional(),
    properties: z
      .record(z.string(), z.unknown())
      .superRefine((properties, ctx) => {
        const problem = propertiesProblem(properties)
        if (problem) ctx.addIssue({ code: 'custom', message: problem })
      })
      .nullable()
      .optional(),
  }),
  page: z.object({
    url: text('page.url'),
    referrer: text('page.referrer').nullable().optional(),
    viewport: z
      .object({
        width: z.number({ error: 'viewport.width must be a number' }),
        height: z.number({ error: 'viewport.height must be a number' }),
      })
      .nullable()
      .optional(),
  }),
  replay: z.object({
    events: z
      .array(RrwebEvent)
      .min(1, 'replay.events must hold at least one event')
      .superRefine((events, ctx) => {
        for (let i = 1; i < events.length; i++) {
          if (events[i]!.timestamp < events[i - 1]!.timestamp) {
            ctx.addIssue({
              code: 'custom',
              path: [i, 'timestamp'],
              message: `events must be in chronological order: event ${i} is earlier than event ${i - 1}`,
            })
            return
          }
        }
      }),
    sequence: z
      .number({ error: 'replay.sequence must be an integer' })
      .int('replay.sequence must be an integer')
      .min(0, 'replay.sequence must be at least 0')
      .max(2_147_483_647, 'replay.sequence must be at most 2147483647'),
  }),
  metadata: z
    .object({
      userAgent: text('metadata.userAgent', 1024).nullable().optional(),
      language: text('metadata.language', 64).nullable().optional(),
      /** The build the page runs (docs/source-maps.md): picks the source maps of its stacks. */
      release: text('metadata.release', MAX_RELEASE_LENGTH)
        .min(1, 'metadata.release must not be empty')
        .nullable()
        .optional(),
      /** Script URL → bundler debug ID, as the recorder found them in the page. */
      debugIds: z
        .record(
          text('metadata.debugIds key', MAX_DEBUG_ID_URL_LENGTH),
          z
            .string({ error: 'metadata.debugIds values must be strings' })
            .regex(DEBUG_ID, 'metadata.debugIds values must be UUIDs'),
        )
        .refine(
          (ids) => Object.keys(ids).length <= MAX_DEBUG_IDS,
          `metadata.debugIds must hold at most ${MAX_DEBUG_IDS} entries`,
        )
        .nullable()
        .optional(),
      /**
       * The recorder's mutation guard stopped recording part of the page (docs/recorder.md):
       * once a batch says so, the session stays marked.
       */
      degraded: z.boolean({ error: 'metadata.degraded must be true or false' }).nullable().optional(),
      /**
       * The recorder found the page driven by automation (docs/hostile-input.md#automated-traffic):
       * the session is kept out of every count. Another value is refused like any bad field.
       */
      automation: z
        .enum(AUTOMATION_KINDS, {
          error: `metadata.automation must be one of ${AUTOMATION_KINDS.join(', ')}`,
        })
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
  flush: z.enum(['normal', 'final'], { error: "flush must be 'normal' or 'final'" }).default('normal'),
})

export type ReplayBatch = z.infer<typeof ReplayBatch>
