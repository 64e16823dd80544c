import { corsPreflight, oauthCors } from '@/lib/http/cors'
import { oauthEndpoint, presentedClient, readForm } from '@/lib/http/oauth'
import { revokeTokenRequest } from '@/lib/oauth/revoke-token'

/** RFC 7009 revocation: 200 with an empty body whatever became of the token. */
export const POST = oauthEndpoint(async ({ req, db }) => {
  const form = await readForm(req)
  await revokeTokenRequest(db, form, presentedClient(req, form))
  return new Response(null, { status: 200 })
})

export const OPTIONS = corsPreflight(oauthCors(['POST']))
