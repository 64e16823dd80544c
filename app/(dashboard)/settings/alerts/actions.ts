'use server'

import { revalidatePath } from 'next/cache'
import { createRule, deleteRule, setRulePaused, updateRule } from '@/lib/alerts/rules'
import { ownerAction, type ActionResult as Result } from '@/lib/http/actions'
import { formText, formTexts, textArgument } from '@/lib/validation'

export type ActionResult = Result

const PATH = '/settings/alerts'
const OWNERS_ONLY = 'manage alert rules'

/** The form's fields as the domain takes them; the domain validates every one. */
const ruleFields = (form: FormData) => ({
  name: formText(form, 'name'),
  trigger: formText(form, 'trigger'),
  priorities: formTexts(form, 'priorities'),
  kinds: formTexts(form, 'kinds'),
  urlContains: formText(form, 'urlContains'),
  savedSearchId: formText(form, 'savedSearchId'),
  destination: formText(form, 'destination'),
  mode: formText(form, 'mode'),
  windowMinutes: formText(form, 'windowMinutes'),
  maxPerWindow: formText(form, 'maxPerWindow'),
  issueCooldownMinutes: formText(form, 'issueCooldownMinutes'),
})

export const createRuleAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: 'create the alert rule' },
  async ({ db, user, organization }, _prev: ActionResult | null, form: FormData): Promise<ActionResult> => {
    const rule = await createRule(db, { organizationId: organization.id, userId: user.id }, ruleFields(form))
    revalidatePath(PATH)
    return { ok: true, message: `Rule ${rule.name} created.` }
  },
)

export const updateRuleAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: 'save the alert rule' },
  async ({ db, organization }, _prev: ActionResult | null, form: FormData): Promise<ActionResult> => {
    const rule = await updateRule(
      db,
      { organizationId: organization.id },
      formText(form, 'ruleId'),
      ruleFields(form),
    )
    revalidatePath(PATH)
    revalidatePath(`${PATH}/${rule.id}`)
    return { ok: true, message: `Rule ${rule.name} saved.` }
  },
)

export const pauseRuleAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: ([, paused]) => (paused ? 'pause the rule' : 'resume the rule') },
  async ({ db, organization }, ruleId: string, paused: boolean): Promise<ActionResult> => {
    await setRulePaused(db, { organizationId: organization.id }, textArgument(ruleId), paused === true)
    revalidatePath(PATH)
    return { ok: true, message: paused ? 'Paused.' : 'Resumed.' }
  },
)

export const deleteRuleAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: 'delete the rule' },
  async ({ db, organization }, ruleId: string): Promise<ActionResult> => {
    await deleteRule(db, { organizationId: organization.id }, textArgument(ruleId))
    revalidatePath(PATH)
    return { ok: true, message: 'Deleted.' }
  },
)
