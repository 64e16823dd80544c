import { getConfig } from '@/lib/config'
import { corsPreflight, oauthCors } from '@/lib/http/cors'
import { oauthEndpoint, readJson } from '@/lib/http/oauth'
import { json } from '@/lib/http/respond'
import { registerClient } from '@/lib/oauth/register-client'
import { checkRegistrationRate } from '@/lib/oauth/registration-rate'
import { clientAddress } from '@/lib/ratelimit/client-address'

/** RFC 7591 dynamic client registration. */
export const POST = oauthEndpoint(async ({ req, db }) => {
  await checkRegistrationRate(clientAddress(req.headers))
  return json(await registerClient(db, await readJson(req), getConfig()), 201)
})

export const OPTIONS = corsPreflight(oauthCors(['POST']))
