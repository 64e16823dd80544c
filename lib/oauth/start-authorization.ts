import type { DbOrTx } from '@/db/client'
import type { Config } from '@/lib/config'
import { authorizationResponseUrl } from './authorization-response'
import {
  type AuthorizationRequest,
  authorizationParams,
  validateAuthorizationRequest,
} from './authorize-request'
import { findCoveringConsents } from './consent'
import { createCsrfToken } from './csrf'
import { AuthorizeRequestError } from './errors'
import { issueAuthorizationCode } from './issue-code'
import { issuer } from './metadata'
import { parseScope } from './scopes'

/** The signed-in user as the authorize flow needs them (lib/http resolves the session). */
export interface AuthorizeUser {
  id: string
  organizations: { id: string; name: string }[]
}

export interface ConsentView {
  clientName: string
  /** Where the browser will be sent: the one fact about the client the user can verify. */
  redirectHost: string
  scopes: string[]
  organizations: { id: string; name: string }[]
  /** Hidden form fields: the validated request, re-checked in full on POST. */
  fields: [string, string][]
  csrfToken: string
}

export type AuthorizeOutcome =
  | { kind: 'error'; check: string }
  | { kind: 'login'; callbackPath: string }
  | { kind: 'no_organization' }
  | { kind: 'redirect'; location: string }
  | { kind: 'consent'; view: ConsentView }

export type AuthorizeConfig = Pick<Config, 'baseUrl' | 'authSecret'> & {
  oauth: Pick<Config['oauth'], 'authorizationCodeTtlSeconds'>
}

export function authorizePath(request: AuthorizationRequest): string {
  return `/oauth/authorize?${authorizationParams(request).toString()}`
}

/** Validation first; a fault is the opaque page whatever else is wrong (no redirect ever). */
export async function validateOrFault(
  db: DbOrTx,
  params: URLSearchParams,
  config: AuthorizeConfig,
): Promise<AuthorizationRequest | { kind: 'error'; check: string }> {
  try {
    return await validateAuthorizationRequest(db, params, config)
  } catch (error) {
    if (error instanceof AuthorizeRequestError) return { kind: 'error', check: error.check }
    throw error
  }
}

/**
 * GET /oauth/authorize: validate → sign in → skip consent when an active consent in exactly
 * one of the user's organizations covers the request (a code at once) → else the page.
 * `prompt` is not validated: only its `consent` value means anything here.
 */
export async function startAuthorization(
  db: DbOrTx,
  params: URLSearchParams,
  user: AuthorizeUser | null,
  config: AuthorizeConfig,
  now = Date.now(),
): Promise<AuthorizeOutcome> {
  const request = await validateOrFault(db, params, config)
  if ('kind' in request) return request
  if (!user) return { kind: 'login', callbackPath: `/oauth/authorize?${params.toString()}` }
  if (user.organizations.length === 0) return { kind: 'no_organization' }

  const covering = await findCoveringConsents(db, {
    clientId: request.client.clientId,
    userId: user.id,
    organizationIds: user.organizations.map((o) => o.id),
    scope: request.scope,
  })
  const organizations = new Set(covering.map((c) => c.organizationId))
  const consent = covering[0]
  // OIDC's `prompt=consent` asks for the page anyway (to connect another organization).
  const forced = parseScope(params.get('prompt')).includes('consent')
  // Approved in several organizations: the user picks again rather than us guessing.
  if (consent && organizations.size === 1 && !forced) {
    const code = await issueAuthorizationCode(
      db,
      request,
      {
        userId: user.id,
        organizationId: consent.organizationId,
        consentId: consent.id,
        scope: request.scope,
      },
      config.oauth.authorizationCodeTtlSeconds,
    )
    return {
      kind: 'redirect',
      location: authorizationResponseUrl(request.redirectUri, issuer(config), { code }, request.state),
    }
  }

  return {
    kind: 'consent',
    view: {
      clientName: request.client.clientName,
      redirectHost: new URL(request.redirectUri).host,
      scopes: parseScope(request.scope),
      organizations: user.organizations.map(({ id, name }) => ({ id, name })),
      fields: [...authorizationParams(request).entries()],
      csrfToken: createCsrfToken(user.id, request, now, config.authSecret),
    },
  }
}
