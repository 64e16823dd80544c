/**
 * OAuth protocol errors, one class per RFC error code (RFC 6749 §5.2, RFC 7591 §3.2.2,
 * RFC 8707 §2), answered as JSON by the token, revocation and registration endpoints with
 * `status`. None of them ever travels to a redirect URI: at authorize every fault is the
 * opaque page (AuthorizeRequestError), and the one redirected error is the user's
 * `access_denied`, sent only after the client and its redirect URI were verified.
 */
export abstract class OAuthError extends Error {
  abstract readonly error: string
  readonly status: number = 400
}

export class InvalidRequestError extends OAuthError {
  readonly error = 'invalid_request'
}

/** Unknown client, wrong secret, missing credentials: always the same answer. */
export class InvalidClientError extends OAuthError {
  readonly error = 'invalid_client'
  override readonly status = 401
  constructor(
    message = 'Client authentication failed',
    /** The client tried HTTP Basic, so the answer carries `WWW-Authenticate: Basic`. */
    readonly usedBasic = false,
  ) {
    super(message)
  }
}

export class InvalidGrantError extends OAuthError {
  readonly error = 'invalid_grant'
}

export class UnauthorizedClientError extends OAuthError {
  readonly error = 'unauthorized_client'
}

/** A client using a grant it did not register (the token endpoint's one wording). */
export const unauthorizedForGrant = (grantType: string) =>
  new UnauthorizedClientError(`This client is not registered for the ${grantType} grant`)

export class UnsupportedGrantTypeError extends OAuthError {
  readonly error = 'unsupported_grant_type'
}

export class InvalidScopeError extends OAuthError {
  readonly error = 'invalid_scope'
}

export class InvalidTargetError extends OAuthError {
  readonly error = 'invalid_target'
}

/** RFC 7591; the spec uses it for redirect URIs too, with an opaque message. */
export class InvalidClientMetadataError extends OAuthError {
  readonly error = 'invalid_client_metadata'
}

export class TooManyRequestsError extends OAuthError {
  readonly error = 'too_many_requests'
  override readonly status = 429
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message)
  }
}

/**
 * Any fault of an authorization request (unknown or revoked client, redirect mismatch,
 * malformed PKCE, ...). The page shows one opaque message and never redirects; `check`
 * names the failed step for logs and tests only.
 */
export class AuthorizeRequestError extends Error {
  constructor(readonly check: string) {
    super(`authorization request failed: ${check}`)
  }
}
