import { TOKEN_PREFIXES } from '@/lib/credentials/tokens'

/** How long an invitation link works; the database's clock measures it. */
export const INVITATION_TTL_DAYS = 7

/** What every refusal of a stale link says: only the owner can do something about it. */
export const INVALID_INVITATION =
  'This invitation link is no longer valid: it was already used, revoked or has expired. Ask an owner of the organization for a new link.'

/** The address an owner copies and sends; this service sends no e-mail itself. */
export function invitationUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/invite/${encodeURIComponent(token)}`
}

/** Only strings shaped like our tokens reach the database (and its index). */
export function looksLikeInvitationToken(token: string): boolean {
  return token.startsWith(TOKEN_PREFIXES.invitation) && token.length <= 200
}
