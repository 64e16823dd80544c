import { z } from 'zod'
import { AUDIT_ACTORS } from '@/db/schema'

const isoDate = z.iso.datetime({ offset: true })

/** One audit trail entry as the Data API answers it and the dashboard's audit page lists it. */
export const AuditEvent = z.object({
  id: z.uuid(),
  createdAt: isoDate,
  actor: z.object({
    type: z.enum(AUDIT_ACTORS),
    id: z.string().nullable().meta({
      description: 'User id, credential id, OAuth client id, or `cli` for the admin CLI',
    }),
    name: z.string().nullable().meta({
      description: "The member's name or e-mail, the key's or app's name; null once it no longer exists",
    }),
  }),
  action: z.string().meta({ description: '`area.verb`, e.g. replay.viewed, retention.changed' }),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  metadata: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: "What changed (before/after, counts); never an end user's data" }),
  requestId: z.string().nullable(),
})
export type AuditEvent = z.infer<typeof AuditEvent>
