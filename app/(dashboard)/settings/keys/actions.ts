'use server'

import { revalidatePath } from 'next/cache'
import { getConfig } from '@/lib/config'
import { createDashboardKey } from '@/lib/credentials/dashboard-keys'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { SCOPES } from '@/lib/credentials/scopes'
import { type ActionResult, ownerAction } from '@/lib/http/actions'
import { reproductionRunCommand } from '@/lib/reproduction/bundle-files'
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

export const createKeyAction = ownerAction(
  { ownersOnly: 'create keys', what: 'create the key' },
  async (
    { db, user, organization },
    _previous: CreateKeyResult | null,
    form: FormData,
  ): Promise<CreateKeyResult> => {
    const created = await createDashboardKey(db, {
      organizationId: organization.id,
      createdByUserId: user.id,
      type: formText(form, 'type'),
      name: formText(form, 'name'),
      allowStatusUpdates: formText(form, 'allowStatusUpdates') === 'on',
      allowSourcemapUploads: formText(form, 'allowSourcemapUploads') === 'on',
      allowPrivacyRequests: formText(form, 'allowPrivacyRequests') === 'on',
      allowReproductionResults: formText(form, 'allowReproductionResults') === 'on',
      createdByRole: organization.role,
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
          : created.scopes.includes(SCOPES.writeVerifications)
            ? reproductionRunCommand(baseUrl, created.key)
            : `curl -H "Authorization: Bearer ${created.key}" ${baseUrl}/api/v1/issues`
    return { ok: true, type, name: created.name, key: created.key, scopes: created.scopes, example }
  },
)

export const revokeKeyAction = ownerAction(
  { ownersOnly: 'revoke keys', what: 'revoke the key' },
  async ({ db, organization, actor }, keyId: string): Promise<ActionResult> => {
    await revokeKey(db, { id: textArgument(keyId), organizationId: organization.id, actor })
    revalidatePath(PATH)
    revalidatePath('/')
    return { ok: true, message: 'Key revoked.' }
  },
)
