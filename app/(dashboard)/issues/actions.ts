'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, memberAction } from '@/lib/http/actions'
import { updateIssuesStatus } from '@/lib/issues/update-issues-status'

const plural = (n: number) => `${n} ${n === 1 ? 'issue' : 'issues'}`

/** Resolves the issues checked in the list (form fields named `issue`), in one transaction. */
export const resolveSelectedAction = memberAction(
  { what: 'resolve the selected issues' },
  async ({ db, actor }, _previous: ActionResult | null, form: FormData): Promise<ActionResult> => {
    const ids = form.getAll('issue').filter((v): v is string => typeof v === 'string')
    const result = await updateIssuesStatus(db, actor, { issueIds: ids, status: 'resolved' })
    revalidatePath('/issues')
    const parts = [`Resolved ${plural(result.changed)}.`]
    if (result.unchanged > 0) parts.push(`${plural(result.unchanged)} already resolved.`)
    if (result.notFound > 0) parts.push(`${plural(result.notFound)} no longer exist.`)
    return { ok: true, message: parts.join(' ') }
  },
)
