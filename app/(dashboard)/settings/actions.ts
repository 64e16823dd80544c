'use server'

import { revalidatePath } from 'next/cache'
import { actorOfMember } from '@/lib/actor'
import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure, actionMember, actionOwner } from '@/lib/http/actions'
import { createInvitation } from '@/lib/members/create-invitation'
import { INVITATION_TTL_DAYS, invitationUrl } from '@/lib/members/invitation-link'
import { changeMemberRole, removeMember } from '@/lib/members/members'
import { revokeInvitation } from '@/lib/members/revoke-invitation'
import { setNetworkPolicy } from '@/lib/orgs/network-policy'
import { POLICY_LABELS } from '@/lib/orgs/network-policy-input'
import { renameOrganization } from '@/lib/orgs/rename-organization'
import { setOrganizationPlan } from '@/lib/orgs/set-plan'
import { formText, textArgument } from '@/lib/validation'

const PATH = '/settings'

export type InvitationResult = ActionResult<{
  email: string
  role: string
  url: string
  expiresInDays: number
  replacedEarlier: boolean
}>

export async function renameOrganizationAction(
  _previous: ActionResult | null,
  form: FormData,
): Promise<ActionResult> {
  const owner = await actionOwner('rename the organization')
  if (!owner.ok) return owner
  try {
    const renamed = await renameOrganization(await getDb(), {
      organizationId: owner.organization.id,
      name: formText(form, 'name'),
    })
    // The name is in the top bar of every dashboard page.
    revalidatePath('/', 'layout')
    return { ok: true, message: `The organization is now called ${renamed.name}.` }
  } catch (error) {
    return actionFailure(error, 'rename the organization')
  }
}

/** What ingest does with captured headers and bodies (docs/network-details.md): owners only. */
export async function changeNetworkPolicyAction(
  _previous: ActionResult | null,
  form: FormData,
): Promise<ActionResult> {
  const owner = await actionOwner('change the network details policy')
  if (!owner.ok) return owner
  try {
    const changed = await setNetworkPolicy(await getDb(), {
      organizationId: owner.organization.id,
      policy: formText(form, 'policy'),
      redactKeys: formText(form, 'redactKeys'),
      actor: actorOfMember(owner),
    })
    revalidatePath(PATH)
    const keys = changed.networkRedactKeys.length
    return {
      ok: true,
      message: `Network details: ${POLICY_LABELS[changed.networkDetails]}; ${keys === 0 ? 'no' : keys} extra key word${keys === 1 ? '' : 's'} redacted.`,
    }
  } catch (error) {
    return actionFailure(error, 'change the network details policy')
  }
}

/** Plans are the installation's business, not the organization's: only instance operators. */
export async function changePlanAction(
  _previous: ActionResult | null,
  form: FormData,
): Promise<ActionResult> {
  const member = await actionMember()
  if (!member.ok) return member
  if (!member.user.isOperator)
    return { ok: false, error: 'Only the instance operator can change plans (see docs/self-hosting.md).' }
  try {
    const changed = await setOrganizationPlan(await getDb(), {
      organizationId: member.organization.id,
      plan: formText(form, 'plan'),
    })
    // The plan decides what the webhooks page offers, and shows on this page.
    revalidatePath('/', 'layout')
    return { ok: true, message: `The organization is now on the ${changed.plan} plan.` }
  } catch (error) {
    return actionFailure(error, 'change the plan')
  }
}

export async function changeMemberRoleAction(userId: string, role: string): Promise<ActionResult> {
  const owner = await actionOwner('change roles')
  if (!owner.ok) return owner
  try {
    const changed = await changeMemberRole(await getDb(), {
      organizationId: owner.organization.id,
      userId: textArgument(userId),
      role: textArgument(role),
    })
    revalidatePath('/', 'layout')
    return { ok: true, message: changed.changed ? `Role changed to ${changed.role}.` : 'Role unchanged.' }
  } catch (error) {
    return actionFailure(error, 'change the role')
  }
}

/** Owners remove anyone; everyone may remove themselves (leave). The last owner never goes. */
export async function removeMemberAction(userId: string): Promise<ActionResult> {
  const member = await actionMember()
  if (!member.ok) return member
  // Only the member's own id as a string is "leave": `[id]` must not pass for it.
  const target = textArgument(userId)
  const self = target === member.user.id
  const actor = self ? member : await actionOwner('remove members')
  if (!actor.ok) return actor
  try {
    await removeMember(await getDb(), { organizationId: actor.organization.id, userId: target })
    revalidatePath('/', 'layout')
    return { ok: true, message: self ? 'You left the organization.' : 'Member removed.' }
  } catch (error) {
    return actionFailure(error, self ? 'leave the organization' : 'remove the member')
  }
}

export async function createInvitationAction(
  _previous: InvitationResult | null,
  form: FormData,
): Promise<InvitationResult> {
  const owner = await actionOwner('invite people')
  if (!owner.ok) return owner
  try {
    const created = await createInvitation(await getDb(), {
      organizationId: owner.organization.id,
      email: formText(form, 'email'),
      role: formText(form, 'role', 'member'),
      invitedByUserId: owner.user.id,
    })
    revalidatePath(PATH)
    return {
      ok: true,
      email: created.email,
      role: created.role,
      url: invitationUrl(getConfig().baseUrl, created.token),
      expiresInDays: INVITATION_TTL_DAYS,
      replacedEarlier: created.replacedEarlier,
    }
  } catch (error) {
    return actionFailure(error, 'create the invitation')
  }
}

export async function revokeInvitationAction(invitationId: string): Promise<ActionResult> {
  const owner = await actionOwner('revoke invitations')
  if (!owner.ok) return owner
  try {
    const revoked = await revokeInvitation(await getDb(), {
      organizationId: owner.organization.id,
      id: textArgument(invitationId),
    })
    revalidatePath(PATH)
    return { ok: true, message: `The invitation for ${revoked.email} no longer works.` }
  } catch (error) {
    return actionFailure(error, 'revoke the invitation')
  }
}
