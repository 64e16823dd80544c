import { and, eq, type SQL, sql } from 'drizzle-orm'
import { z } from 'zod'
import { PERSON_KINDS, type PersonKind, replaySessions } from '@/db/schema'
import { deriveKey } from '@/lib/crypto/keys'
import { openText, sealText } from '@/lib/crypto/sealed'

/** Longest identifier accepted in a privacy request: the ingest schema's own bound on user fields. */
export const MAX_PERSON_VALUE_CHARS = 512

/**
 * One end user, as a privacy request names them: the site's user id, an e-mail (matched in
 * any case, as the sessions filter does) or the recorder's anonymous id.
 */
export const PersonRef = z.object({
  kind: z.enum(PERSON_KINDS),
  value: z.string().trim().min(1).max(MAX_PERSON_VALUE_CHARS),
})
export type PersonRef = z.infer<typeof PersonRef>

/** The condition that selects every session of the person in one organization. */
export function personSessionsWhere(organizationId: string, person: PersonRef): SQL {
  const inOrg = eq(replaySessions.organizationId, organizationId)
  const column: Record<PersonKind, SQL> = {
    user_id: sql`${replaySessions.userId} = ${person.value}`,
    email: sql`lower(${replaySessions.userEmail}) = lower(${person.value})`,
    anonymous_id: sql`${replaySessions.anonymousId} = ${person.value}`,
  }
  return and(inOrg, column[person.kind]) as SQL
}

/** The identifier as kept in a request row while it runs: sealed, never in the clear. */
export function sealPerson(person: PersonRef): string {
  return sealText(person.value, deriveKey('privacy-person-v1'))
}

export function openPerson(kind: PersonKind, sealed: string): PersonRef {
  return { kind, value: openText(sealed, deriveKey('privacy-person-v1')) }
}
