import { pruneAlertHistory } from '@/lib/alerts/prune'
import { operatorActor } from '@/lib/audit/operator'
import { pruneAuditTrail } from '@/lib/audit/prune'
import { getConfig } from '@/lib/config'
import { isUuid, NotFoundError } from '@/lib/errors'
import { deleteSessions } from '@/lib/retention/delete-sessions'
import { setOrganizationRetention } from '@/lib/retention/set-retention'
import { sweepRetention } from '@/lib/retention/sweep'
import { sweepSourcemaps } from '@/lib/sourcemaps/sweep'
import { getBlobStore } from '@/lib/storage'
import { type CliCommand, requireString } from '../command'

export const orgRetention: CliCommand = {
  name: 'org:retention',
  summary: 'Set how many days of replay data an organization keeps',
  usage: 'org:retention --org ID --days N',
  options: { org: { type: 'string' }, days: { type: 'string' } },
  async run(db, values) {
    const organizationId = requireString(values, 'org', this.usage)
    const result = await setOrganizationRetention(db, operatorActor(organizationId), {
      organizationId,
      days: requireString(values, 'days', this.usage),
    })
    return {
      json: { id: result.id, retentionDays: result.retentionDays },
      text: `Organization ${result.id} keeps replay data for ${result.retentionDays} days`,
    }
  },
}

export const sessionDelete: CliCommand = {
  name: 'session:delete',
  summary: 'Delete one recorded session with its replay data',
  usage: 'session:delete --org ID --session ID',
  options: { org: { type: 'string' }, session: { type: 'string' } },
  async run(db, values) {
    const organizationId = requireString(values, 'org', this.usage)
    const sessionId = requireString(values, 'session', this.usage)
    const missing = new NotFoundError(`No session ${sessionId} in organization ${organizationId}`)
    if (!isUuid(organizationId) || !isUuid(sessionId)) throw missing
    const result = await deleteSessions(db, getBlobStore(), { organizationId, sessionIds: [sessionId] })
    if (result.sessions === 0) throw missing
    return {
      json: { id: sessionId, ...result },
      text: `Deleted session ${sessionId} and ${result.blobs} replay files`,
    }
  },
}

export const retentionRun: CliCommand = {
  name: 'retention:run',
  summary:
    'Delete replay data past each organization’s retention, expired source maps, old alert history and old audit entries, now',
  usage: 'retention:run',
  options: {},
  // The hourly retention-sweep job's steps (inngest/jobs.ts), in its order.
  async run(db) {
    const result = await sweepRetention(db, getBlobStore())
    const sourcemaps = await sweepSourcemaps(db, getBlobStore(), {
      retentionDays: getConfig().sourcemaps.retentionDays,
    })
    const alerts = await pruneAlertHistory(db)
    const audit = await pruneAuditTrail(db)
    const more = result.more || sourcemaps.more
    return {
      json: { ...result, sourcemaps, alerts, audit },
      text: `Deleted ${result.sessions} sessions (${result.blobs} replay files) in ${result.organizations} organizations, ${sourcemaps.files} source maps and ${alerts.events + alerts.messages} alert history rows${more ? '; more remain, run again' : ''}`,
    }
  },
}
