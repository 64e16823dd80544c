import { boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { VERIFICATION_RUNNERS, VERIFICATION_STATUSES } from '../../lib/releases/verification-vocabulary'
import { createdAt, id, oneOf, ts } from './columns'
import { issues } from './issues'
import { organizations } from './organizations'

export { VERIFICATION_RUNNERS, VERIFICATION_STATUSES } from '../../lib/releases/verification-vocabulary'

/**
 * An organization's releases (docs/releases.md): every `metadata.release` a counted (not
 * automated) session ran, plus those CI declared with POST /api/v1/releases. Their order decides
 * whether an occurrence after a fix is a regression.
 */
export const releases = pgTable(
  'releases',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    version: text('version').notNull(),
    /** Whether `version` parses as semver (lib/releases/order.ts): the order is semver only when all do. */
    semver: boolean('semver').notNull(),
    /** Server time of the first counted session that ran it, or of its declaration by CI. */
    firstSeenAt: ts('first_seen_at').notNull().defaultNow(),
    /** The deploy time CI stated (POST /api/v1/releases): orders non-semver releases in its place. */
    deployedAt: ts('deployed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('releases_org_version_unique').on(t.organizationId, t.version),
    index('releases_org_first_seen_idx').on(t.organizationId, t.firstSeenAt),
  ],
)

/**
 * A run of an issue's reproduction against a deployment (docs/releases.md#verification): posted
 * by the bundle's reporter in CI or by an agent. Written by the customer's runner, not recorded
 * from end users; the summary is what the runner printed, bounded.
 */
export const issueVerifications = pgTable(
  'issue_verifications',
  {
    id: id(),
    issueId: uuid('issue_id')
      .notNull()
      .references(() => issues.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    status: text('status', { enum: VERIFICATION_STATUSES }).notNull(),
    /** The release the deployment under test runs, when the runner named one. */
    release: text('release'),
    /** The deployment the reproduction ran against (REPRO_BASE_URL). */
    baseUrl: text('base_url').notNull(),
    summary: text('summary'),
    durationMs: integer('duration_ms'),
    runner: text('runner', { enum: VERIFICATION_RUNNERS }).notNull(),
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('issue_verifications_issue_idx').on(t.issueId, t.createdAt.desc().nullsFirst()),
    index('issue_verifications_org_created_idx').on(t.organizationId, t.createdAt),
    oneOf('issue_verifications_status_check', t.status, VERIFICATION_STATUSES),
    oneOf('issue_verifications_runner_check', t.runner, VERIFICATION_RUNNERS),
  ],
)
