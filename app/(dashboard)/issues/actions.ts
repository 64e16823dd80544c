'use server'

import { revalidatePath } from 'next/cache'
import { actorOfMember } from '@/lib/actor'
import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure, actionMember } from '@/lib/http/actions'
import { updateIssuesStatus } from '@/lib/issues/update-issues-status'

const plural = (n: number) => `${n} ${n === 1 ? 'issue' : 'issues'}`

/** Resolves the issues checked in the list (form fields named `issue`), in one transaction. */
export async function resolveSelectedAction(
  _previous: ActionResult | null,
  form: FormData,
): Promise<ActionResult> {
  const member = await actionMember()
  if (!member.ok) return member
  const ids = form.getAll('issue').filter((v): v is string => typeof v === 'string')
  try {
    const result = await updateIssuesStatus(await getDb(), actorOfMember(member), {
      issueIds: ids,
      status: 'resolved',
    })
    revalidatePath('/issues')
    const parts = [`Resolved ${plural(result.changed)}.`]
    if (result.unchanged > 0) parts.push(`${plural(result.unchanged)} already resolved.`)
    if (result.notFound > 0) parts.push(`${plural(result.notFound)} no longer exist.`)
    return { ok: true, message: parts.join(' ') }
  } catch (error) {
    return actionFailure(error, 'resolve the selected issues')
  }
}
