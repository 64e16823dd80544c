export const SCOPES = {
  read: 'read:service',
  writeIssues: 'write:issues',
  ingest: 'ingest',
  /** Data API keys that upload source maps (POST /api/v1/sourcemaps); chosen when the key is made. */
  writeSourcemaps: 'write:sourcemaps',
} as const

export type Scope = (typeof SCOPES)[keyof typeof SCOPES]
