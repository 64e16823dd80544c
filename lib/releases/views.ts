import { z } from 'zod'
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from '@/db/schema'

const isoDate = z.iso.datetime({ offset: true })

/** One release of the organization with its health figures (docs/releases.md#health). */
export const Release = z.object({
  version: z
    .string()
    .meta({ description: 'As the recorder sent it in metadata.release, or as CI declared it' }),
  semver: z.boolean().meta({ description: 'Whether the version parses as semver' }),
  firstSeenAt: isoDate.meta({
    description: "Server time of the first counted session that ran it, or of CI's declaration",
  }),
  deployedAt: isoDate.nullable().meta({ description: 'The deploy time CI stated, if any' }),
  sessions: z.number().int().meta({ description: 'Counted sessions (not automation) that ran the release' }),
  sessionsWithErrors: z
    .number()
    .int()
    .meta({ description: 'Of those, the analysed ones with at least one error' }),
  crashFreeSessions: z.number().nullable().meta({
    description:
      'Percent of analysed sessions without an error, 2 decimals rounded half up; null when none was analysed yet',
  }),
  users: z
    .number()
    .int()
    .meta({ description: 'Distinct identified users, each anonymous visitor counted once' }),
  newIssues: z.number().int().meta({ description: 'Issues first seen in a session of this release' }),
  regressions: z.number().int().meta({ description: 'Regressions whose session ran this release' }),
  lastSessionAt: isoDate.nullable().meta({ description: 'Server time of its latest counted session' }),
})
export type Release = z.infer<typeof Release>

export const IssueRef = z.object({
  id: z.uuid(),
  title: z.string(),
  status: z.enum(ISSUE_STATUSES),
  priority: z.enum(ISSUE_PRIORITIES),
  sessionCount: z.number().int().meta({ description: "The issue's sessions, of every release" }),
})
export type IssueRef = z.infer<typeof IssueRef>

export const AdoptionDay = z.object({
  day: z.iso.date().meta({ description: 'A UTC day' }),
  sessions: z.number().int().meta({ description: "The release's counted sessions received that day" }),
  share: z.number().meta({
    description:
      'Its share of all counted sessions received that day, 0 to 1, 4 decimals; 0 when there were none',
  }),
})
export type AdoptionDay = z.infer<typeof AdoptionDay>

export const ReleaseDetail = Release.extend({
  adoption: z.array(AdoptionDay).meta({ description: 'The last 30 UTC days, oldest first, today included' }),
  issues: z.object({
    new: z
      .array(IssueRef)
      .meta({ description: 'First seen in this release, most sessions first (at most 50)' }),
    regressed: z
      .array(IssueRef)
      .meta({ description: 'Reopened by a session of this release, latest first (at most 50)' }),
    seen: z.array(IssueRef).meta({
      description: 'Seen in counted sessions of this release, most such sessions first (at most 50)',
    }),
  }),
})
export type ReleaseDetail = z.infer<typeof ReleaseDetail>

export const ReleaseList = z.object({
  releases: z.array(Release),
  nextCursor: z.string().nullable(),
  order: z.enum(['semver', 'seen']).meta({
    description: 'semver when every release parses as semver, else by deploy time or first seen',
  }),
})
export type ReleaseList = z.infer<typeof ReleaseList>
