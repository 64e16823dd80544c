import type { DbOrTx } from '@/db/client'
import { SCOPES } from '@/lib/credentials/scopes'
import { authorizationResponseUrl } from './authorization-response'
import { grantConsent } from './consent'
import { verifyCsrfToken } from './csrf'
import { issueAuthorizationCode } from './issue-code'
import { issuer } from './metadata'
import { formatScope, parseScope } from './scopes'
import {
  type AuthorizeConfig,
  type AuthorizeOutcome,
  type AuthorizeUser,
  authorizePath,
  validateOrFault,
} from './start-authorization'

/**
 * The consent form's fields besides the request itself: `csrf_token`, `decision`
 * (`approve` or `deny`), `organization_id` (optional with one organization) and
 * `write_issues` (`1` to grant write:issues when it was asked; an unticked box sends nothing).
 */
const CONSENT_FIELDS = {
  csrf: 'csrf_token',
  decision: 'decision',
  organization: 'organization_id',
  write: 'write_issues',
} as const

/**
 * POST /oauth/authorize: the whole request is validated again (the client may have been
 * revoked meanwhile), then the session, the CSRF token and the choice. Approval stores the
 * consent and sends a code; denial sends `access_denied`. Both carry `state` and `iss`.
 */
export async function decideConsent(
  db: DbOrTx,
  form: URLSearchParams,
  user: AuthorizeUser | null,
  config: AuthorizeConfig,
  now = Date.now(),
): Promise<AuthorizeOutcome> {
  const request = await validateOrFault(db, form, config)
  if ('kind' in request) return request
  if (!user) return { kind: 'login', callbackPath: authorizePath(request) }
  if (user.organizations.length === 0) return { kind: 'no_organization' }
  if (!verifyCsrfToken(form.get(CONSENT_FIELDS.csrf), user.id, request, now, config.authSecret))
    return { kind: 'error', check: 'csrf_token_valid' }

  const respond = (result: Parameters<typeof authorizationResponseUrl>[2]): AuthorizeOutcome => ({
    kind: 'redirect',
    location: authorizationResponseUrl(request.redirectUri, issuer(config), result, request.state),
  })
  const decision = form.get(CONSENT_FIELDS.decision)
  if (decision === 'deny') return respond({ error: 'access_denied' })
  if (decision !== 'approve') return { kind: 'error', check: 'decision_known' }

  const chosen =
    form.get(CONSENT_FIELDS.organization) ||
    (user.organizations.length === 1 ? user.organizations[0]!.id : '')
  const organization = user.organizations.find((o) => o.id === chosen)
  if (!organization) return { kind: 'error', check: 'organization_of_user' }

  const withoutWrite = form.get(CONSENT_FIELDS.write) !== '1'
  const granted = parseScope(request.scope).filter((s) => !(withoutWrite && s === SCOPES.writeIssues))
  // Nothing left to grant (only write:issues was asked and the user unticked it).
  if (granted.length === 0) return respond({ error: 'access_denied' })
  const scope = formatScope(granted)

  const consentId = await grantConsent(db, {
    clientId: request.client.clientId,
    userId: user.id,
    organizationId: organization.id,
    scope,
  })
  const code = await issueAuthorizationCode(
    db,
    request,
    { userId: user.id, organizationId: organization.id, consentId, scope },
    config.oauth.authorizationCodeTtlSeconds,
  )
  return respond({ code })
}
