'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, ownerAction } from '@/lib/http/actions'
import { deleteRelease } from '@/lib/sourcemaps/releases'
import { getBlobStore } from '@/lib/storage'
import { textArgument } from '@/lib/validation'

/** Deletes a release's maps; owners only, as every other destructive setting. */
export const deleteReleaseAction = ownerAction(
  { ownersOnly: 'delete source maps', what: 'delete the source maps' },
  async ({ db, organization }, release: string): Promise<ActionResult> => {
    const deleted = await deleteRelease(db, getBlobStore(), organization.id, {
      release: textArgument(release),
    })
    revalidatePath('/settings/source-maps')
    const maps = deleted.files === 1 ? 'source map' : 'source maps'
    return { ok: true, message: `Deleted ${deleted.files} ${maps} of ${deleted.release}.` }
  },
)
