'use server'

import { revalidatePath } from 'next/cache'
import { getDb } from '@/lib/db'
import { actionFailure, actionOwner } from '@/lib/http/actions'
import { type CreateIntegrationInput, createIntegration } from '@/lib/integrations/create-integration'
import { revokeIntegration } from '@/lib/integrations/revoke-integration'
import { formText, textArgument } from '@/lib/validation'

export type ConnectResult = { ok: true; message: string } | { ok: false; error: string }

const PATH = '/settings/integrations'

const requireOwner = () => actionOwner('manage integrations')

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

export async function connectIntegrationAction(
  kind: Kind,
  _prev: ConnectResult | null,
  form: FormData,
): Promise<ConnectResult> {
  const owner = await requireOwner()
  if (!owner.ok) return owner
  if (kind !== 'slack' && kind !== 'linear' && kind !== 'github')
    return { ok: false, error: 'Unknown integration.' }
  try {
    const created = await createIntegration(
      await getDb(),
      inputOf(kind, form, {
        organizationId: owner.organization.id,
        name: formText(form, 'name'),
        createdByUserId: owner.user.id,
      }),
    )
    revalidatePath(PATH)
    const where = created.settings.kind === 'linear' ? ` (team ${created.settings.teamKey})` : ''
    return { ok: true, message: `Connected ${created.name}${where}. The secret is stored encrypted.` }
  } catch (error) {
    return actionFailure(error, 'connect the integration')
  }
}

export async function revokeIntegrationAction(integrationId: string): Promise<ConnectResult> {
  const owner = await requireOwner()
  if (!owner.ok) return owner
  try {
    await revokeIntegration(await getDb(), {
      id: textArgument(integrationId),
      organizationId: owner.organization.id,
    })
    revalidatePath(PATH)
    return { ok: true, message: 'Disconnected. Nothing more is sent through it.' }
  } catch (error) {
    return actionFailure(error, 'disconnect the integration')
  }
}
