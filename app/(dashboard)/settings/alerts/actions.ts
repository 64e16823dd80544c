'use server'

import { revalidatePath } from 'next/cache'
import { createRule, deleteRule, setRulePaused, updateRule } from '@/lib/alerts/rules'
import { getDb } from '@/lib/db'
import { actionFailure, actionOwner } from '@/lib/http/actions'
import { formText, formTexts, textArgument } from '@/lib/validation'

export type ActionResult = { ok: true; message: string } | { ok: false; error: string }

const PATH = '/settings/alerts'
const requireOwner = () => actionOwner('manage alert rules')

/** The form's fields as the domain takes them; the domain validates every one. */
const ruleFields = (form: FormData) => ({
  name: formText(form, 'name'),
  trigger: formText(form, 'trigger'),
  priorities: formTexts(form, 'priorities'),
  kinds: formTexts(form, 'kinds'),
  urlContains: formText(form, 'urlContains'),
  destination: formText(form, 'destination'),
  mode: formText(form, 'mode'),
  windowMinutes: formText(form, 'windowMinutes'),
  maxPerWindow: formText(form, 'maxPerWindow'),
  issueCooldownMinutes: formText(form, 'issueCooldownMinutes'),
})

export async function createRuleAction(_prev: ActionResult | null, form: FormData): Promise<ActionResult> {
  const owner = await requireOwner()
  if (!owner.ok) return owner
  try {
    const rule = await createRule(
      await getDb(),
      { organizationId: owner.organization.id, userId: owner.user.id },
      ruleFields(form),
    )
    revalidatePath(PATH)
    return { ok: true, message: `Rule ${rule.name} created.` }
  } catch (error) {
    return actionFailure(error, 'create the alert rule')
  }
}

export async function updateRuleAction(_prev: ActionResult | null, form: FormData): Promise<ActionResult> {
  const owner = await requireOwner()
  if (!owner.ok) return owner
  try {
    const rule = await updateRule(
      await getDb(),
      { organizationId: owner.organization.id },
      formText(form, 'ruleId'),
      ruleFields(form),
    )
    revalidatePath(PATH)
    revalidatePath(`${PATH}/${rule.id}`)
    return { ok: true, message: `Rule ${rule.name} saved.` }
  } catch (error) {
    return actionFailure(error, 'save the alert rule')
  }
}

export async function pauseRuleAction(ruleId: string, paused: boolean): Promise<ActionResult> {
  const owner = await requireOwner()
  if (!owner.ok) return owner
  try {
    await setRulePaused(
      await getDb(),
      { organizationId: owner.organization.id },
      textArgument(ruleId),
      paused === true,
    )
    revalidatePath(PATH)
    return { ok: true, message: paused ? 'Paused.' : 'Resumed.' }
  } catch (error) {
    return actionFailure(error, paused ? 'pause the rule' : 'resume the rule')
  }
}

export async function deleteRuleAction(ruleId: string): Promise<ActionResult> {
  const owner = await requireOwner()
  if (!owner.ok) return owner
  try {
    await deleteRule(await getDb(), { organizationId: owner.organization.id }, textArgument(ruleId))
    revalidatePath(PATH)
    return { ok: true, message: 'Deleted.' }
  } catch (error) {
    return actionFailure(error, 'delete the rule')
  }
}
