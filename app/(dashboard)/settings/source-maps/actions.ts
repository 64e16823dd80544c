'use server'

import { revalidatePath } from 'next/cache'
import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure, actionOwner } from '@/lib/http/actions'
import { deleteRelease } from '@/lib/sourcemaps/releases'
import { getBlobStore } from '@/lib/storage'
import { textArgument } from '@/lib/validation'

/** Deletes a release's maps; owners only, as every other destructive setting. */
export async function deleteReleaseAction(release: string): Promise<ActionResult> {
  const owner = await actionOwner('delete source maps')
  if (!owner.ok) return owner
  try {
    const deleted = await deleteRelease(await getDb(), getBlobStore(), owner.organization.id, {
      release: textArgument(release),
    })
    revalidatePath('/settings/source-maps')
    const maps = deleted.files === 1 ? 'source map' : 'source maps'
    return { ok: true, message: `Deleted ${deleted.files} ${maps} of ${deleted.release}.` }
  } catch (error) {
    return actionFailure(error, 'delete the source maps')
  }
}
