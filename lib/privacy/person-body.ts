import { z } from 'zod'
import { InvalidInputError } from '@/lib/errors'
import { isStorableText } from '@/lib/validation'
import { MAX_PERSON_VALUE_CHARS, type PersonRef } from './person'

/** What a privacy request body (erasures, exports) must say when it does not name one person. */
export const PERSON_BODY_MESSAGE =
  'Body must name exactly one person: {"userId"}, {"email"} or {"anonymousId"}'

const Identifier = z.string().trim().min(1).max(MAX_PERSON_VALUE_CHARS).refine(isStorableText)

/**
 * `{userId}`, `{email}` or `{anonymousId}`, exactly one, and nothing else: the body of
 * `POST /api/v1/erasures` and `POST /api/v1/exports`, and the dashboard's forms. Strict, so a
 * misspelt field is refused instead of reaching a request that names nobody, or everybody.
 */
export const PersonBody = z
  .strictObject({
    userId: Identifier.optional(),
    email: Identifier.optional(),
    anonymousId: Identifier.optional(),
  })
  .meta({ description: 'One person, named by exactly one of the three fields' })

export type PersonBody = z.infer<typeof PersonBody>

/** The person a request body names, or a 400 that says what to send. */
export function parsePersonBody(body: unknown): PersonRef {
  const parsed = PersonBody.safeParse(body)
  if (!parsed.success) throw new InvalidInputError(PERSON_BODY_MESSAGE)
  const named: PersonRef[] = []
  if (parsed.data.userId !== undefined) named.push({ kind: 'user_id', value: parsed.data.userId })
  if (parsed.data.email !== undefined) named.push({ kind: 'email', value: parsed.data.email })
  if (parsed.data.anonymousId !== undefined)
    named.push({ kind: 'anonymous_id', value: parsed.data.anonymousId })
  if (named.length !== 1) throw new InvalidInputError(PERSON_BODY_MESSAGE)
  return named[0]!
}
