import { z } from 'zod'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { isStorableText, NOT_STORABLE } from '@/lib/validation'

const MISSING = 'version must be a release name (a version, a commit, a build number) of 1 to 200 characters'

/** A release named in a path or a filter: any name a session could have sent. */
export const ReleaseVersion = z
  .string({ error: MISSING })
  .min(1, MISSING)
  // Bounded before anything else reads it.
  .max(MAX_RELEASE_LENGTH, `version must be at most ${MAX_RELEASE_LENGTH} characters`)
  .refine(isStorableText, `version ${NOT_STORABLE}`)

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true
  }
  return false
}

/** A release CI declares: the same bounds, and no control characters (nothing prints them). */
export const DeclaredVersion = ReleaseVersion.refine(
  (value) => !hasControlCharacter(value),
  'version must not contain control characters',
)
