import { z } from 'zod'
import type { Db } from '@/db/client'
import { signals } from '@/db/schema'
import { InvalidInputError } from '@/lib/errors'
import { getOrganization } from '@/lib/orgs/get-organization'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { holdSavedSearch } from '@/lib/saved-searches/query'
import { isStorableText, NOT_STORABLE, parseInput } from '@/lib/validation'
import { type Signal, toSignal } from './views'

const Name = z
  .string()
  .trim()
  .min(1, 'Signal name must not be empty')
  .max(100, 'Signal name must be at most 100 characters')
  .refine(isStorableText, `Signal name ${NOT_STORABLE}`)
export const SignalPrompt = z
  .string()
  .trim()
  .min(3, 'Signal prompt must be at least 3 characters')
  .max(2000, 'Signal prompt must be at most 2000 characters')
  .refine(isStorableText, `Signal prompt ${NOT_STORABLE}`)

const NO_SAVED_SEARCH = 'savedSearchId must be a saved search of this organization'

/**
 * Creates an active signal (filtered by a saved search when `savedSearchId` is given) and, in the same transaction, the event that backfills it over
 * the organization's sessions of the last 30 days. Returns it in its Data API shape.
 */
export async function createSignal(
  db: Db,
  input: { organizationId: string; name: string; prompt: string; savedSearchId?: string | null },
): Promise<{ signal: Signal; eventId: string | null }> {
  const name = parseInput(Name, input.name)
  const prompt = parseInput(SignalPrompt, input.prompt)
  const savedSearchId = input.savedSearchId || null
  await getOrganization(db, input.organizationId)
  return commitWithEvents(db, async (tx) => {
    if (savedSearchId !== null && !(await holdSavedSearch(tx, input.organizationId, savedSearchId)))
      throw new InvalidInputError(NO_SAVED_SEARCH)
    const [row] = await tx
      .insert(signals)
      .values({ organizationId: input.organizationId, name, prompt, savedSearchId })
      .returning()
    const eventId = await enqueueEvent(tx, {
      organizationId: input.organizationId,
      name: EVENTS.signalCreated,
      payload: { organizationId: input.organizationId, signalId: row!.id },
      dedupeKey: `signal.backfill:${row!.id}`,
    })
    return { signal: toSignal(row!), eventId }
  })
}
