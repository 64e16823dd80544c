import { and, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { issueVerifications } from '@/db/schema'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { isStorableText, NOT_STORABLE, parseInput } from '@/lib/validation'
import type { Verification } from './verification-view'
import {
  VERIFICATION_RUNNERS,
  VERIFICATION_STATUSES,
  type VerificationRunner,
  type VerificationStatus,
} from './verification-vocabulary'

export const MAX_BASE_URL_LENGTH = 2048
export const MAX_SUMMARY_CHARACTERS = 4000
/** A day: a reproduction run that took longer is not a measurement. */
export const MAX_DURATION_MS = 86_400_000
/** How many runs an issue shows (IssueDetail.verifications, the issue page). */
export const VERIFICATIONS_SHOWN = 10

/** A run's outcome after validation: what recordVerification stores. */
export interface VerificationInput {
  status: VerificationStatus
  baseUrl: string
  release: string | null
  summary: string | null
  durationMs: number | null
  runner: VerificationRunner
}

/** What a caller sends, before validation: every field is the caller's to get wrong. */
export interface RawVerification {
  status: unknown
  baseUrl: unknown
  release?: unknown
  summary?: unknown
  durationMs?: unknown
  runner?: unknown
}

/** Counts code points up to one past the limit: a longer text is not walked to its end. */
function withinCharacters(text: string, max: number): boolean {
  let count = 0
  for (const _ of text) if (++count > max) return false
  return true
}

// Control characters (C0, DEL, C1) but tab and newline: a summary is shown as plain text, and
// a terminal's escape sequences (ANSI colours) or a carriage return that overwrites a line
// would make it read otherwise than it is stored. One character per match, no backtracking.
const CONTROL = /(?![\n\t])\p{Cc}/gu

/** The summary as stored: control characters but newline and tab removed, null when blank. */
export function cleanSummary(summary: string): string | null {
  const cleaned = summary.replace(CONTROL, '').trim()
  return cleaned === '' ? null : cleaned
}

const BaseUrl = z
  .string({ error: 'baseUrl must be the http(s) address the reproduction ran against' })
  .max(MAX_BASE_URL_LENGTH, `baseUrl must be at most ${MAX_BASE_URL_LENGTH} characters`)
  .transform((value, context) => {
    const url = URL.canParse(value) ? new URL(value) : null
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      context.addIssue({ code: 'custom', message: 'baseUrl must be an http or https address' })
      return z.NEVER
    }
    // A preview's basic-auth password in a URL would be shown to every member on the issue page.
    if (url.username !== '' || url.password !== '') {
      context.addIssue({ code: 'custom', message: 'baseUrl must not contain a user name or password' })
      return z.NEVER
    }
    return value
  })

const Body = z.object(
  {
    status: z.enum(VERIFICATION_STATUSES, {
      error: `status must be one of: ${VERIFICATION_STATUSES.join(', ')}`,
    }),
    baseUrl: BaseUrl,
    release: z
      .string({ error: 'release must be a string' })
      .min(1, 'release must not be empty')
      .max(MAX_RELEASE_LENGTH, `release must be at most ${MAX_RELEASE_LENGTH} characters`)
      .refine(isStorableText, `release ${NOT_STORABLE}`)
      .nullish(),
    summary: z
      .string({ error: 'summary must be a string' })
      // Code units first (at most two per character), so a huge value is refused before it is walked.
      .max(MAX_SUMMARY_CHARACTERS * 2, `summary must be at most ${MAX_SUMMARY_CHARACTERS} characters`)
      .refine(
        (value) => withinCharacters(value, MAX_SUMMARY_CHARACTERS),
        `summary must be at most ${MAX_SUMMARY_CHARACTERS} characters`,
      )
      // NUL is a control character, removed as the others; a broken surrogate cannot be stored.
      .refine(
        (value) => isStorableText(value.replace(CONTROL, '')),
        'summary must not contain broken (unpaired) Unicode surrogates',
      )
      .nullish(),
    durationMs: z
      .number({ error: `durationMs must be an integer from 0 to ${MAX_DURATION_MS}` })
      .int(`durationMs must be an integer from 0 to ${MAX_DURATION_MS}`)
      .min(0, `durationMs must be an integer from 0 to ${MAX_DURATION_MS}`)
      .max(MAX_DURATION_MS, `durationMs must be an integer from 0 to ${MAX_DURATION_MS}`)
      .nullish(),
    runner: z.enum(VERIFICATION_RUNNERS, {
      error: `runner must be one of: ${VERIFICATION_RUNNERS.join(', ')}`,
    }),
  },
  { error: 'The body must be a JSON object' },
)

/** Validates a run's outcome; every refusal is an InvalidInputError naming the field. */
export function parseVerification(raw: RawVerification): VerificationInput {
  const body = parseInput(Body, raw)
  return {
    status: body.status,
    baseUrl: body.baseUrl,
    release: body.release ?? null,
    summary: body.summary === null || body.summary === undefined ? null : cleanSummary(body.summary),
    durationMs: body.durationMs ?? null,
    runner: body.runner,
  }
}

type VerificationRow = typeof issueVerifications.$inferSelect

export function toVerification(row: VerificationRow): Verification {
  return {
    id: row.id,
    status: row.status,
    release: row.release,
    baseUrl: row.baseUrl,
    summary: row.summary,
    durationMs: row.durationMs,
    runner: row.runner,
    createdAt: row.createdAt.toISOString(),
  }
}

/**
 * An issue's latest runs, newest first. The caller has checked that the issue is the
 * organization's (lib/issues); the organization is in the query all the same.
 */
export async function listVerifications(
  db: DbOrTx,
  organizationId: string,
  issueId: string,
  limit = VERIFICATIONS_SHOWN,
): Promise<Verification[]> {
  const rows = await db
    .select()
    .from(issueVerifications)
    .where(
      and(eq(issueVerifications.issueId, issueId), eq(issueVerifications.organizationId, organizationId)),
    )
    .orderBy(desc(issueVerifications.createdAt), desc(issueVerifications.id))
    .limit(limit)
  return rows.map(toVerification)
}
