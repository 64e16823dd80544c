/**
 * The redirect back to the client (RFC 6749 §4.1.2 and §4.1.2.1) with RFC 9207's `iss`.
 * Parameters are added to the redirect URI's own query, which is kept as registered; `state`
 * is echoed exactly as received.
 */
export function authorizationResponseUrl(
  redirectUri: string,
  issuer: string,
  result: { code: string } | { error: 'access_denied'; description?: string },
  state: string | undefined,
): string {
  const url = new URL(redirectUri)
  if ('code' in result) url.searchParams.append('code', result.code)
  else {
    url.searchParams.append('error', result.error)
    if (result.description) url.searchParams.append('error_description', result.description)
  }
  if (state !== undefined) url.searchParams.append('state', state)
  url.searchParams.append('iss', issuer)
  return url.href
}
