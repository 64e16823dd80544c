export const SCOPES = {
  read: 'read:service',
  writeIssues: 'write:issues',
  ingest: 'ingest',
  /** Data API keys that upload source maps (POST /api/v1/sourcemaps); chosen when the key is made. */
  writeSourcemaps: 'write:sourcemaps',
  /**
   * Privacy work on end users' data (docs/privacy.md): erasures, exports, re-masking, retention
   * and reading the audit trail. Only owners create keys with it.
   */
  writePrivacy: 'write:privacy',
  /**
   * Reproduction results from CI (POST /api/v1/issues/{issueId}/verifications, docs/releases.md):
   * an upload-only key like the source map key; it may be the same key.
   */
  writeVerifications: 'write:verifications',
} as const

export type Scope = (typeof SCOPES)[keyof typeof SCOPES]
