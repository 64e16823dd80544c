import { and, desc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { replaySessions } from '@/db/schema'
import type { SessionDigest } from '@/lib/analysis/types'
import { parseInput } from '@/lib/validation'
import { SignalPrompt } from './create-signal'
import { describePrompt, type PromptReading } from './describe-prompt'
import { matchDigest, parsePrompt } from './deterministic-match'

const PREVIEW_SESSIONS = 200
const PREVIEW_DAYS = 7

export interface SignalPreview extends PromptReading {
  /** Analysed sessions looked at: the latest PREVIEW_SESSIONS of the last PREVIEW_DAYS days. */
  checked: number
  matched: number
  days: number
}

/**
 * What a prompt would find before it is saved (issue 15): how the keyword rules read it and
 * how many of the organization's latest analysed sessions it matches. Bounded work — one
 * query for at most 200 digests (never a replay), matched in memory — and nothing is stored.
 */
export async function previewSignal(
  db: Db,
  input: { organizationId: string; prompt: string },
): Promise<SignalPreview> {
  const parsed = parsePrompt(parseInput(SignalPrompt, input.prompt))
  const reading = describePrompt(parsed)
  if (!reading.checkable) return { ...reading, checked: 0, matched: 0, days: PREVIEW_DAYS }
  const sessions = await db
    .select({ digest: replaySessions.digest })
    .from(replaySessions)
    .where(
      and(
        eq(replaySessions.organizationId, input.organizationId),
        isNotNull(replaySessions.digest),
        // Automated traffic never matches a signal (docs/hostile-input.md#automated-traffic).
        isNull(replaySessions.automation),
        gt(replaySessions.createdAt, sql`now() - make_interval(days => ${PREVIEW_DAYS})`),
      ),
    )
    .orderBy(desc(replaySessions.createdAt))
    .limit(PREVIEW_SESSIONS)
  let matched = 0
  for (const session of sessions) {
    if (matchDigest(parsed, session.digest as unknown as SessionDigest).matched) matched++
  }
  return { ...reading, checked: sessions.length, matched, days: PREVIEW_DAYS }
}
