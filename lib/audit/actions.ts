/**
 * What the audit trail records (docs/privacy.md#audit-trail), `area.verb`. Client-safe: the
 * dashboard's audit page labels these without importing the database.
 */
export const AUDIT_ACTIONS = [
  'replay.viewed',
  'export.requested',
  'export.downloaded',
  'erasure.requested',
  'erasure.completed',
  'remask.requested',
  'remask.completed',
  'masking.changed',
  'retention.changed',
  'session.pinned',
  'session.unpinned',
  'key.created',
  'key.revoked',
  'share.created',
  'share.revoked',
  'share.viewed',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]
