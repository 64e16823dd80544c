import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { oauthClients } from '@/db/schema'
import type { Config } from '@/lib/config'
import { generateToken, hashToken, TOKEN_PREFIXES } from '@/lib/credentials/tokens'
import { InvalidClientMetadataError } from './errors'
import { isAllowedRedirectUri } from './redirect-uri'
import { DEFAULT_SCOPE, formatScope, parseScope, SUPPORTED_SCOPES } from './scopes'

const DEFAULT_CLIENT_NAME = 'Unnamed Client'
const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const
/** Not in the spec: bounds on what one registration may store. */
const MAX_REDIRECT_URIS = 10

const nonEmptyList = (item: z.ZodType<string>) => z.array(item).min(1).max(20)

/** RFC 7591 §2 as the spec narrows it; unknown members (logo_uri, ...) are ignored. */
const Metadata = z.object({
  redirect_uris: z.array(z.string()).min(1).max(MAX_REDIRECT_URIS),
  client_name: z
    .string()
    .trim()
    .max(64)
    .regex(/^[A-Za-z0-9 ._()-]*$/)
    .nullish(),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_post']).nullish(),
  // A code flow needs the authorization_code grant (RFC 7591 §2.1: response_type code ⇒
  // grant_type authorization_code); refresh_token is optional.
  grant_types: nonEmptyList(z.enum(GRANT_TYPES))
    .refine((list) => list.includes('authorization_code'))
    .nullish(),
  response_types: nonEmptyList(z.string())
    .refine((list) => list.includes('code'))
    .nullish(),
  scope: z.string().max(1000).nullish(),
})

export interface RegisteredClient {
  client_id: string
  client_name: string
  redirect_uris: string[]
  token_endpoint_auth_method: 'none' | 'client_secret_post'
  grant_types: string[]
  response_types: string[]
  scope: string
  client_id_issued_at: number
  client_secret?: string
  client_secret_expires_at?: number
}

type RegisterConfig = { oauth: Pick<Config['oauth'], 'hostedRedirectOrigins' | 'extraRedirectUris'> }

/**
 * Dynamic client registration. Every redirect URI must pass the allowlist or nothing is
 * stored; the secret of a `client_secret_post` client is returned once and kept as SHA-256.
 */
export async function registerClient(db: DbOrTx, body: unknown, config: RegisterConfig) {
  const parsed = Metadata.safeParse(body)
  if (!parsed.success) throw new InvalidClientMetadataError('Invalid client metadata')
  const input = parsed.data
  const redirectUris = [...new Set(input.redirect_uris)]
  if (!redirectUris.every((uri) => isAllowedRedirectUri(uri, config.oauth)))
    throw new InvalidClientMetadataError('Invalid redirect URI')

  const method = input.token_endpoint_auth_method ?? 'none'
  const grantTypes = GRANT_TYPES.filter((g) => (input.grant_types ?? GRANT_TYPES).includes(g))
  // Scopes we do not know are dropped (RFC 7591 §3.2.1 lets the server replace values) so
  // that a client sending `openid` still registers; what was kept is in the answer.
  const scopes = parseScope(input.scope).filter((s) => SUPPORTED_SCOPES.includes(s))
  const clientId = generateToken(TOKEN_PREFIXES.oauthClient)
  const secret = method === 'client_secret_post' ? generateToken(TOKEN_PREFIXES.oauthClientSecret) : null

  const [row] = await db
    .insert(oauthClients)
    .values({
      clientId,
      clientName: input.client_name || DEFAULT_CLIENT_NAME,
      redirectUris,
      tokenEndpointAuthMethod: method,
      grantTypes,
      // Only `code` is ever honoured, so that is what is registered and returned.
      responseTypes: ['code'],
      scope: scopes.length > 0 ? formatScope(scopes) : DEFAULT_SCOPE,
      clientSecretHash: secret ? hashToken(secret) : null,
    })
    .returning()
  const client = row!
  const answer: RegisteredClient = {
    client_id: client.clientId,
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: client.grantTypes,
    response_types: client.responseTypes,
    scope: client.scope,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
  }
  // RFC 7591 §3.2.1: client_secret_expires_at is required with a secret; 0 = never.
  if (secret) Object.assign(answer, { client_secret: secret, client_secret_expires_at: 0 })
  return answer
}
