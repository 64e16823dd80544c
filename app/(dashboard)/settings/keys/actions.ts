'use server'

import { revalidatePath } from 'next/cache'
import { actorOfMember } from '@/lib/actor'
import { getConfig } from '@/lib/config'
import { createDashboardKey } from '@/lib/credentials/dashboard-keys'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { SCOPES } from '@/lib/credentials/scopes'
import { getDb } from '@/lib/db'
import { type ActionResult, actionFailure, actionOwner } from '@/lib/http/actions'
import { recorderSnippet } from '@/lib/sdk/snippet'
import { sourcemapUploadExample } from '@/lib/sourcemaps/example'
import { formText, textArgument } from '@/lib/validation'

const PATH = '/settings/keys'

export type CreateKeyResult = ActionResult<{
  type: 'ingest' | 'api'
  name: string
  key: string
  scopes: string[]
  /** Ingest keys: the <script> tag with the key filled in. Data API keys: a first request. */
  example: string
}>

export async function createKeyAction(
  _previous: CreateKeyResult | null,
  form: FormData,
): Promise<CreateKeyResult> {
  const owner = await actionOwner('create keys')
  if (!owner.ok) return owner
  const name = formText(form, 'name')
  try {
    const created = await createDashboardKey(await getDb(), {
      organizationId: owner.organization.id,
      createdByUserId: owner.user.id,
      type: formText(form, 'type'),
      name,
      allowStatusUpdates: formText(form, 'allowStatusUpdates') === 'on',
      allowSourcemapUploads: formText(form, 'allowSourcemapUploads') === 'on',
      allowPrivacyRequests: formText(form, 'allowPrivacyRequests') === 'on',
      createdByRole: owner.organization.role,
    })
    revalidatePath(PATH)
    revalidatePath('/')
    const { baseUrl, ingestUrl } = getConfig()
    const type = created.type === 'ingest' ? 'ingest' : 'api'
    const example =
      type === 'ingest'
        ? recorderSnippet({ baseUrl, ingestUrl, apiKey: created.key })
        : created.scopes.includes(SCOPES.writeSourcemaps)
          ? sourcemapUploadExample(baseUrl, created.key)
          : `curl -H "Authorization: Bearer ${created.key}" ${baseUrl}/api/v1/issues`
    return { ok: true, type, name: created.name, key: created.key, scopes: created.scopes, example }
  } catch (error) {
    return actionFailure(error, 'create the key')
  }
}

export async function revokeKeyAction(keyId: string): Promise<ActionResult> {
  const owner = await actionOwner('revoke keys')
  if (!owner.ok) return owner
  try {
    await revokeKey(await getDb(), {
      id: textArgument(keyId),
      organizationId: owner.organization.id,
      actor: actorOfMember(owner),
    })
    revalidatePath(PATH)
    revalidatePath('/')
    return { ok: true, message: 'Key revoked.' }
  } catch (error) {
    return actionFailure(error, 'revoke the key')
  }
}
