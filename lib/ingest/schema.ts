import { z } from 'zod'

/**
 * The replay batch of the ingest API (spec: "Replay batch"). Events are opaque beyond the
 * three fields every rrweb event has; the stored batch is the request body itself.
 */
// The range of a JavaScript Date: anything outside cannot be stored or shown as a time.
const MAX_EPOCH_MS = 8.64e15

export const RrwebEvent = z
  .object({
    timestamp: z
      .number({ error: 'timestamp must be a number (epoch milliseconds)' })
      .min(0, 'timestamp must be epoch milliseconds')
      .max(MAX_EPOCH_MS, 'timestamp must be epoch milliseconds'),
    type: z.number({ error: 'type must be an integer (rrweb event type)' }).int('type must be an integer'),
    data: z.unknown().refine((value) => value !== undefined, 'data is required'),
  })
  .loose()

const nonEmpty = (field: string) =>
  z.string({ error: `${field} must be a string` }).min(1, `${field} must not be empty`)
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
    url: z.string({ error: 'session.url must be a string' }),
  }),
  user: z.object({
    anonymousId: nonEmpty('user.anonymousId'),
    id: z.string().nullable().optional(),
    properties: z.record(z.string(), z.unknown()).nullable().optional(),
  }),
  page: z.object({
    url: z.string({ error: 'page.url must be a string' }),
    referrer: z.string().nullable().optional(),
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
      userAgent: z.string().nullable().optional(),
      language: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
  flush: z.enum(['normal', 'final'], { error: "flush must be 'normal' or 'final'" }).default('normal'),
})

export type ReplayBatch = z.infer<typeof ReplayBatch>
