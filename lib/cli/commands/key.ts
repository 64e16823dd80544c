import { createKey } from '@/lib/credentials/create-key'
import { revokeKey } from '@/lib/credentials/revoke-key'
import { type CliCommand, optionalString, requireString } from '../command'

export const keyCreate: CliCommand = {
  name: 'key:create',
  summary: 'Create an ingest (svc_pk_), Data API (svc_api_) or legacy MCP (svc_mcp_) key',
  usage:
    'key:create --org ID --type ingest|api|mcp [--write] [--privacy] [--sourcemaps] [--verifications] [--name N]',
  options: {
    org: { type: 'string' },
    type: { type: 'string' },
    write: { type: 'boolean' },
    sourcemaps: { type: 'boolean' },
    // write:verifications: reproduction results from CI (docs/releases.md#verification).
    verifications: { type: 'boolean' },
    // write:privacy: erasures, exports, re-masking and the audit trail (docs/privacy.md).
    privacy: { type: 'boolean' },
    name: { type: 'string' },
  },
  async run(db, values) {
    const key = await createKey(db, {
      organizationId: requireString(values, 'org', this.usage),
      type: requireString(values, 'type', this.usage),
      write: values.write === true,
      sourcemaps: values.sourcemaps === true,
      verifications: values.verifications === true,
      privacy: values.privacy === true,
      name: optionalString(values, 'name'),
    })
    return {
      json: { id: key.id, type: key.type, key: key.key, scopes: key.scopes },
      text: `Created ${key.type} key ${key.id} with scopes ${key.scopes.join(', ')}. Copy it now; it is not shown again:\n${key.key}`,
    }
  },
}

export const keyRevoke: CliCommand = {
  name: 'key:revoke',
  summary: 'Revoke a key at once',
  usage: 'key:revoke --id ID',
  options: { id: { type: 'string' } },
  async run(db, values) {
    const result = await revokeKey(db, { id: requireString(values, 'id', this.usage) })
    return {
      json: { id: result.id, revokedAt: result.revokedAt.toISOString() },
      text: `Key ${result.id} revoked at ${result.revokedAt.toISOString()}`,
    }
  },
}
