import { createEndpoint, listEndpoints, revokeEndpoint } from '@/lib/webhooks/endpoints'
import { type CliCommand, optionalString, requireString } from '../command'

const iso = (date: Date | null) => (date ? date.toISOString() : null)

export const webhookCreate: CliCommand = {
  name: 'webhook:create',
  summary: 'Create a webhook endpoint (paid plan; 3 active, 5 created per hour); prints its secret once',
  usage: 'webhook:create --org ID --name N --url U [--events issue.created,...]',
  options: {
    org: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'string' },
  },
  async run(db, values) {
    const events = optionalString(values, 'events')
    const endpoint = await createEndpoint(db, {
      organizationId: requireString(values, 'org', this.usage),
      name: requireString(values, 'name', this.usage),
      url: requireString(values, 'url', this.usage),
      events: events
        ?.split(',')
        .map((e) => e.trim())
        .filter(Boolean),
    })
    return {
      json: {
        id: endpoint.id,
        name: endpoint.name,
        url: endpoint.url,
        events: endpoint.events,
        secret: endpoint.secret,
      },
      text: `Created webhook endpoint ${endpoint.id} for ${endpoint.events.join(', ')}. Copy the signing secret now; it is not shown again:\n${endpoint.secret}`,
    }
  },
}

export const webhookList: CliCommand = {
  name: 'webhook:list',
  summary: "List an organization's webhook endpoints (revoked ones included) with their last delivery",
  usage: 'webhook:list --org ID',
  options: { org: { type: 'string' } },
  async run(db, values) {
    const rows = await listEndpoints(db, requireString(values, 'org', this.usage))
    const endpoints = rows.map((e) => ({
      id: e.id,
      name: e.name,
      url: e.url,
      events: e.events,
      secretPrefix: e.secretPrefix,
      lastDeliveryAt: iso(e.lastDeliveryAt),
      lastStatus: e.lastStatus,
      lastError: e.lastError,
      revokedAt: iso(e.revokedAt),
    }))
    const lines = endpoints.map(
      (e) =>
        `${e.id}  ${e.name}  ${e.url}  [${e.events.join(',')}]  last: ${e.lastDeliveryAt ?? 'never'} ${e.lastError ?? e.lastStatus ?? ''}${e.revokedAt ? '  (revoked)' : ''}`,
    )
    return { json: { endpoints }, text: lines.length > 0 ? lines.join('\n') : 'No webhook endpoints' }
  },
}

export const webhookRevoke: CliCommand = {
  name: 'webhook:revoke',
  summary: 'Revoke a webhook endpoint at once (pending deliveries are cancelled)',
  usage: 'webhook:revoke --id ID',
  options: { id: { type: 'string' } },
  async run(db, values) {
    const result = await revokeEndpoint(db, { id: requireString(values, 'id', this.usage) })
    return {
      json: { id: result.id, revokedAt: result.revokedAt.toISOString() },
      text: `Webhook endpoint ${result.id} revoked at ${result.revokedAt.toISOString()}`,
    }
  },
}
