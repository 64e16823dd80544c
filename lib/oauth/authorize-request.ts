import type { DbOrTx } from '@/db/client'
import type { Config } from '@/lib/config'
import { AuthorizeRequestError, InvalidTargetError } from './errors'
import { findActiveClient, type OAuthClient } from './find-client'
import { resolveResource } from './metadata'
import { isValidCodeChallenge } from './pkce'
import { matchRedirectUri } from './redirect-uri'
import { DEFAULT_SCOPE, formatScope, isSupportedScope, parseScope } from './scopes'

/** An authorization request that passed every check: safe to show, consent to and redirect. */
export interface AuthorizationRequest {
  client: OAuthClient
  redirectUri: string
  codeChallenge: string
  /** Requested scopes in their one spelling (supported order). */
  scope: string
  resource: string
  /** Echoed verbatim (whatever its length) when the client sent one. */
  state: string | undefined
}

const PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'state',
  'resource',
] as const

interface Draft {
  params: URLSearchParams
  config: Pick<Config, 'baseUrl'>
  client?: OAuthClient
  redirectUri?: string
  scope?: string
  resource?: string
}

type Check = readonly [name: string, run: (draft: Draft, db: DbOrTx) => boolean | Promise<boolean>]

const get = (draft: Draft, name: string) => draft.params.get(name) ?? undefined

/**
 * The checks, in order (panva/node-oidc-provider's shape). The client and its redirect URI
 * come first: until both are verified, nothing may be sent anywhere. Every failure is the
 * same opaque page, so the order only decides what the logs name.
 */
const CHECKS: readonly Check[] = [
  // RFC 6749 §3.1: request parameters must not be included more than once.
  ['parameters_not_repeated', (d) => PARAMETERS.every((name) => d.params.getAll(name).length <= 1)],
  [
    'client_registered',
    async (d, db) => {
      d.client = (await findActiveClient(db, get(d, 'client_id'))) ?? undefined
      return d.client !== undefined
    },
  ],
  [
    'client_uses_code_flow',
    (d) => d.client!.responseTypes.includes('code') && d.client!.grantTypes.includes('authorization_code'),
  ],
  [
    'redirect_uri_registered',
    (d) => {
      const requested = get(d, 'redirect_uri')
      d.redirectUri = requested
        ? (matchRedirectUri(requested, d.client!.redirectUris) ?? undefined)
        : undefined
      return d.redirectUri !== undefined
    },
  ],
  ['response_type_code', (d) => get(d, 'response_type') === 'code'],
  ['code_challenge_well_formed', (d) => isValidCodeChallenge(get(d, 'code_challenge'))],
  // `plain` (and an omitted method, which means plain) is refused: S256 only.
  ['code_challenge_method_s256', (d) => get(d, 'code_challenge_method') === 'S256'],
  [
    'scope_supported',
    (d) => {
      const scopes = parseScope(get(d, 'scope'))
      const asked = scopes.length > 0 ? scopes : [DEFAULT_SCOPE]
      d.scope = formatScope(asked)
      return isSupportedScope(asked)
    },
  ],
  [
    'resource_canonical',
    (d) => {
      try {
        d.resource = resolveResource(d.params.getAll('resource'), d.config)
        return true
      } catch (error) {
        if (error instanceof InvalidTargetError) return false
        throw error
      }
    },
  ],
]

/** Runs every check of an authorize request (query of the GET, form of the consent POST). */
export async function validateAuthorizationRequest(
  db: DbOrTx,
  params: URLSearchParams,
  config: Pick<Config, 'baseUrl'>,
): Promise<AuthorizationRequest> {
  const draft: Draft = { params, config }
  for (const [name, run] of CHECKS) if (!(await run(draft, db))) throw new AuthorizeRequestError(name)
  return {
    client: draft.client!,
    redirectUri: draft.redirectUri!,
    codeChallenge: params.get('code_challenge')!,
    scope: draft.scope!,
    resource: draft.resource!,
    state: params.get('state') ?? undefined,
  }
}

/** The parameters that reproduce a validated request (the consent form, the login hop). */
export function authorizationParams(request: AuthorizationRequest): URLSearchParams {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: request.client.clientId,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    scope: request.scope,
    resource: request.resource,
  })
  if (request.state !== undefined) params.set('state', request.state)
  return params
}
