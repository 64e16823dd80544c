import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { replaySessions } from '@/db/schema'
import type { MinifiedFrame, Symbolication } from '@/lib/analysis/frames'
import { logger } from '@/lib/log'
import { markReleaseMapsUsed } from '@/lib/sourcemaps/mark-used'
import type { SymbolicateFrames } from './symbolicator'

/** How many of the positions symbolication resolved were found in a map. */
export function mappedCount(symbolication: Symbolication | null): number {
  let mapped = 0
  for (const frame of Object.values(symbolication?.frames ?? {})) if (frame.status === 'mapped') mapped++
  return mapped
}

/**
 * The original positions of a session's error frames, through the maps uploaded for its
 * release (docs/source-maps.md). Symbolication only improves what analysis already found, so
 * its failure is logged and the session goes on unsymbolicated: null then, as when nothing
 * mapped, since a second analysis pass would change nothing.
 */
export async function symbolicateSession(
  db: DbOrTx,
  symbolicate: SymbolicateFrames,
  input: {
    organizationId: string
    sessionId: string
    release: string
    frames: MinifiedFrame[]
    stacks?: MinifiedFrame[][]
    /** Throw what the symbolicator threw (the run will be retried) instead of going on without. */
    rethrow?: boolean
  },
): Promise<Symbolication | null> {
  const { organizationId, sessionId, release, frames, stacks } = input
  try {
    const [row] = await db
      .select({ debugIds: replaySessions.debugIds })
      .from(replaySessions)
      .where(eq(replaySessions.id, sessionId))
    const symbolication = await symbolicate({
      organizationId,
      release,
      debugIds: row?.debugIds ?? null,
      frames,
      stacks,
    })
    if (mappedCount(symbolication) === 0) return null
    // '' (a session with debug IDs and no release) names no release whose maps it used.
    if (release) await markReleaseMapsUsed(db, organizationId, release)
    return symbolication
  } catch (error) {
    if (input.rethrow) throw error
    logger.warn({ err: error, organizationId, sessionId, release }, 'session symbolication failed')
    return null
  }
}
