export const SCOPES = {
  read: 'read:service',
  writeIssues: 'write:issues',
  ingest: 'ingest',
} as const

export type Scope = (typeof SCOPES)[keyof typeof SCOPES]
