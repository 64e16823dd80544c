/** A share link as lists show it: never its token, which exists only in the creator's answer. */
export interface ShareLinkItem {
  id: string
  sessionId: string
  /** Where the replay opens, in ms after the session started; null: at the start. */
  startAtMs: number | null
  expiresAt: string
  createdAt: string
  revokedAt: string | null
  /** `active` until it expires or is revoked. */
  state: 'active' | 'expired' | 'revoked'
  /** `user:<id>`, `credential:<id>`, `oauth_client:<id>` or `system:<what>`. */
  createdBy: string
}

/** The answer to creating a link: the only time its address (which holds the token) is shown. */
export interface CreatedShareLink extends ShareLinkItem {
  url: string
  embedUrl: string
}

export interface ShareLinkRow {
  id: string
  sessionId: string
  startAtMs: number | null
  expiresAt: Date
  createdAt: Date
  revokedAt: Date | null
  createdByType: string
  createdById: string | null
}

export function toShareLinkItem(row: ShareLinkRow, now = new Date()): ShareLinkItem {
  return {
    id: row.id,
    sessionId: row.sessionId,
    startAtMs: row.startAtMs,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    state: row.revokedAt ? 'revoked' : row.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active',
    createdBy: `${row.createdByType}:${row.createdById ?? ''}`,
  }
}
