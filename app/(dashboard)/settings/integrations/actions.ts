'use server'

import { revalidatePath } from 'next/cache'
import { type ActionResult, ownerAction } from '@/lib/http/actions'
import { type CreateIntegrationInput, createIntegration } from '@/lib/integrations/create-integration'
import { revokeIntegration } from '@/lib/integrations/revoke-integration'
import { setTicketShareLinks } from '@/lib/sharing/ticket-links'
import { formText, textArgument } from '@/lib/validation'

export type ConnectResult = ActionResult

const PATH = '/settings/integrations'
const OWNERS_ONLY = 'manage integrations'

type Kind = CreateIntegrationInput['kind']

/** What each form sends besides its name; the secret fields are never echoed back. */
function inputOf(
  kind: Kind,
  form: FormData,
  base: { organizationId: string; name: string; createdByUserId: string },
) {
  switch (kind) {
    case 'slack':
      return { ...base, kind, webhookUrl: formText(form, 'webhookUrl') }
    case 'linear':
      return { ...base, kind, apiKey: formText(form, 'apiKey'), team: formText(form, 'team') }
    case 'github':
      return { ...base, kind, token: formText(form, 'token'), repository: formText(form, 'repository') }
  }
}

export const connectIntegrationAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: 'connect the integration' },
  async (
    { db, user, organization },
    kind: Kind,
    _prev: ConnectResult | null,
    form: FormData,
  ): Promise<ConnectResult> => {
    if (kind !== 'slack' && kind !== 'linear' && kind !== 'github')
      return { ok: false, error: 'Unknown integration.' }
    const created = await createIntegration(
      db,
      inputOf(kind, form, {
        organizationId: organization.id,
        name: formText(form, 'name'),
        createdByUserId: user.id,
      }),
    )
    revalidatePath(PATH)
    const where = created.settings.kind === 'linear' ? ` (team ${created.settings.teamKey})` : ''
    return { ok: true, message: `Connected ${created.name}${where}. The secret is stored encrypted.` }
  },
)

export const revokeIntegrationAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: 'disconnect the integration' },
  async ({ db, organization }, integrationId: string): Promise<ConnectResult> => {
    await revokeIntegration(db, { id: textArgument(integrationId), organizationId: organization.id })
    revalidatePath(PATH)
    return { ok: true, message: 'Disconnected. Nothing more is sent through it.' }
  },
)

/** Whether tickets link to a share link of the replay (docs/sharing.md#ticket-links). */
export const setTicketShareLinksAction = ownerAction(
  { ownersOnly: OWNERS_ONLY, what: 'change the ticket setting' },
  async ({ db, organization }, enabled: boolean): Promise<ConnectResult> => {
    await setTicketShareLinks(db, { organizationId: organization.id, enabled: enabled === true })
    revalidatePath(PATH)
    return {
      ok: true,
      message:
        enabled === true
          ? 'New tickets link to a share link of the replay (30 days, no account needed).'
          : 'New tickets link to the replay in the dashboard only.',
    }
  },
)
