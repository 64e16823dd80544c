import { getConfig } from '@/lib/config'
import { corsPreflight, oauthCors } from '@/lib/http/cors'
import { oauthEndpoint, presentedClient, readForm } from '@/lib/http/oauth'
import { json } from '@/lib/http/respond'
import { tokenRequest } from '@/lib/oauth/token-request'

/** RFC 6749 §3.2 token endpoint: authorization_code (PKCE) and refresh_token grants. */
export const POST = oauthEndpoint(async ({ req, db }) => {
  const form = await readForm(req)
  return json(await tokenRequest(db, form, presentedClient(req, form), getConfig()))
})

export const OPTIONS = corsPreflight(oauthCors(['POST']))
