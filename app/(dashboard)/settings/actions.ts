'use server'

import { revalidatePath } from 'next/cache'
import { getConfig } from '@/lib/config'
import { type ActionResult, memberAction, ownerAction, ownersOnly } from '@/lib/http/actions'
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

export const renameOrganizationAction = ownerAction(
  { ownersOnly: 'rename the organization', what: 'rename the organization' },
  async ({ db, organization }, _previous: ActionResult | null, form: FormData): Promise<ActionResult> => {
    const renamed = await renameOrganization(db, {
      organizationId: organization.id,
      name: formText(form, 'name'),
    })
    // The name is in the top bar of every dashboard page.
    revalidatePath('/', 'layout')
    return { ok: true, message: `The organization is now called ${renamed.name}.` }
  },
)

/** What ingest does with captured headers and bodies (docs/network-details.md): owners only. */
export const changeNetworkPolicyAction = ownerAction(
  { ownersOnly: 'change the network details policy', what: 'change the network details policy' },
  async (
    { db, organization, actor },
    _previous: ActionResult | null,
    form: FormData,
  ): Promise<ActionResult> => {
    const changed = await setNetworkPolicy(db, {
      organizationId: organization.id,
      policy: formText(form, 'policy'),
      redactKeys: formText(form, 'redactKeys'),
      actor,
    })
    revalidatePath(PATH)
    const keys = changed.networkRedactKeys.length
    return {
      ok: true,
      message: `Network details: ${POLICY_LABELS[changed.networkDetails]}; ${keys === 0 ? 'no' : keys} extra key word${keys === 1 ? '' : 's'} redacted.`,
    }
  },
)

/** Plans are the installation's business, not the organization's: only instance operators. */
export const changePlanAction = memberAction(
  { what: 'change the plan' },
  async (
    { db, user, organization },
    _previous: ActionResult | null,
    form: FormData,
  ): Promise<ActionResult> => {
    if (!user.isOperator)
      return { ok: false, error: 'Only the instance operator can change plans (see docs/self-hosting.md).' }
    const changed = await setOrganizationPlan(db, {
      organizationId: organization.id,
      plan: formText(form, 'plan'),
    })
    // The plan decides what the webhooks page offers, and shows on this page.
    revalidatePath('/', 'layout')
    return { ok: true, message: `The organization is now on the ${changed.plan} plan.` }
  },
)

export const changeMemberRoleAction = ownerAction(
  { ownersOnly: 'change roles', what: 'change the role' },
  async ({ db, organization }, userId: string, role: string): Promise<ActionResult> => {
    const changed = await changeMemberRole(db, {
      organizationId: organization.id,
      userId: textArgument(userId),
      role: textArgument(role),
    })
    revalidatePath('/', 'layout')
    return { ok: true, message: changed.changed ? `Role changed to ${changed.role}.` : 'Role unchanged.' }
  },
)

// Only the member's own id as a string is "leave": `[id]` must not pass for it.
const leaving = (userId: unknown, self: { id: string }): boolean => textArgument(userId) === self.id

/** Owners remove anyone; everyone may remove themselves (leave). The last owner never goes. */
export const removeMemberAction = memberAction(
  { what: ([userId], { user }) => (leaving(userId, user) ? 'leave the organization' : 'remove the member') },
  async ({ db, user, organization }, userId: string): Promise<ActionResult> => {
    const self = leaving(userId, user)
    if (!self && organization.role !== 'owner') return ownersOnly('remove members')
    await removeMember(db, { organizationId: organization.id, userId: textArgument(userId) })
    revalidatePath('/', 'layout')
    return { ok: true, message: self ? 'You left the organization.' : 'Member removed.' }
  },
)

export const createInvitationAction = ownerAction(
  { ownersOnly: 'invite people', what: 'create the invitation' },
  async (
    { db, user, organization },
    _previous: InvitationResult | null,
    form: FormData,
  ): Promise<InvitationResult> => {
    const created = await createInvitation(db, {
      organizationId: organization.id,
      email: formText(form, 'email'),
      role: formText(form, 'role', 'member'),
      invitedByUserId: user.id,
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
  },
)

export const revokeInvitationAction = ownerAction(
  { ownersOnly: 'revoke invitations', what: 'revoke the invitation' },
  async ({ db, organization }, invitationId: string): Promise<ActionResult> => {
    const revoked = await revokeInvitation(db, {
      organizationId: organization.id,
      id: textArgument(invitationId),
    })
    revalidatePath(PATH)
    return { ok: true, message: `The invitation for ${revoked.email} no longer works.` }
  },
)
