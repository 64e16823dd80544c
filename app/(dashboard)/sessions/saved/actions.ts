'use server'

import { revalidatePath } from 'next/cache'
import { SearchQueryError } from '@/lib/errors'
import { type ActionResult, memberAction } from '@/lib/http/actions'
import { createSavedSearch, deleteSavedSearch, updateSavedSearch } from '@/lib/saved-searches/saved-searches'
import { formText, textArgument } from '@/lib/validation'

const PATH = '/sessions/saved'

/** A query the parser refused says where, as the Data API's `position` does (1-based for people). */
async function locatingQueryErrors(save: () => Promise<ActionResult>): Promise<ActionResult> {
  try {
    return await save()
  } catch (error) {
    if (error instanceof SearchQueryError)
      return { ok: false, error: `${error.message} (at character ${error.position + 1})` }
    throw error
  }
}

// Saved searches are shared: every member may save, change and delete them, as with signals.
export const createSavedSearchAction = memberAction(
  { what: 'save the search' },
  async ({ db, user, organization }, _prev: ActionResult | null, form: FormData): Promise<ActionResult> =>
    locatingQueryErrors(async () => {
      const saved = await createSavedSearch(
        db,
        { organizationId: organization.id, userId: user.id },
        { name: formText(form, 'name'), query: formText(form, 'query') },
      )
      revalidatePath(PATH)
      revalidatePath('/')
      return { ok: true, message: `Saved “${saved.name}”.` }
    }),
)

export const updateSavedSearchAction = memberAction(
  { what: 'save the changes' },
  async ({ db, organization }, _prev: ActionResult | null, form: FormData): Promise<ActionResult> =>
    locatingQueryErrors(async () => {
      const saved = await updateSavedSearch(db, organization.id, formText(form, 'id'), {
        name: formText(form, 'name'),
        query: formText(form, 'query'),
      })
      revalidatePath(PATH)
      revalidatePath('/')
      return { ok: true, message: `Saved “${saved.name}”.` }
    }),
)

export const deleteSavedSearchAction = memberAction(
  { what: 'delete the saved search' },
  async ({ db, organization }, id: string): Promise<ActionResult> => {
    await deleteSavedSearch(db, organization.id, textArgument(id))
    revalidatePath(PATH)
    revalidatePath('/')
    return { ok: true, message: 'Deleted.' }
  },
)
