import { createHash, randomBytes } from 'node:crypto'

/** Every bearer string the service issues starts with one of these. */
export const TOKEN_PREFIXES = {
  ingest: 'svc_pk_',
  api: 'svc_api_',
  mcp: 'svc_mcp_',
  oauthAccess: 'svc_oat_',
  oauthRefresh: 'svc_ort_',
  oauthCode: 'svc_oac_',
  oauthClient: 'svc_client_',
  oauthClientSecret: 'svc_cs_',
  webhookSecret: 'whsec_',
  /** One-time links that let someone join an organization. */
  invitation: 'svc_inv_',
  /** Links that show one replay without an account (docs/sharing.md). */
  shareLink: 'svc_shr_',
} as const

export type TokenPrefix = (typeof TOKEN_PREFIXES)[keyof typeof TOKEN_PREFIXES]

/** 32 random bytes (256 bits) in base64url after the prefix. */
export function generateToken(prefix: TokenPrefix): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`
}

/** Tokens are high-entropy, so a plain SHA-256 is the right lookup hash (no salt or KDF). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** What lists show: the prefix and the first six random characters, never enough to use. */
export function displayPrefix(token: string, prefix: TokenPrefix): string {
  return `${prefix}${token.slice(prefix.length, prefix.length + 6)}…`
}
