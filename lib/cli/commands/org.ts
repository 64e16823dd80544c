import { getConfig } from '@/lib/config'
import { createOrganization } from '@/lib/orgs/create-organization'
import { listOrganizations } from '@/lib/orgs/list-organizations'
import { setNetworkPolicy } from '@/lib/orgs/network-policy'
import { setOrganizationPlan } from '@/lib/orgs/set-plan'
import { type CliCommand, optionalString, requireString } from '../command'

export const orgCreate: CliCommand = {
  name: 'org:create',
  summary: 'Create an organization',
  usage: 'org:create --name N [--plan free|paid]',
  options: { name: { type: 'string' }, plan: { type: 'string' } },
  async run(db, values) {
    const org = await createOrganization(db, {
      name: requireString(values, 'name', this.usage),
      plan: optionalString(values, 'plan'),
      defaultPlan: getConfig().orgs.defaultPlan,
    })
    return { json: { ...org }, text: `Created organization "${org.name}" (id ${org.id}, plan ${org.plan})` }
  },
}

export const orgPlan: CliCommand = {
  name: 'org:plan',
  summary: "Change an organization's plan",
  usage: 'org:plan --org ID --plan free|paid',
  options: { org: { type: 'string' }, plan: { type: 'string' } },
  async run(db, values) {
    const result = await setOrganizationPlan(db, {
      organizationId: requireString(values, 'org', this.usage),
      plan: requireString(values, 'plan', this.usage),
    })
    return { json: { ...result }, text: `Organization ${result.id} is now on the ${result.plan} plan` }
  },
}

export const orgList: CliCommand = {
  name: 'org:list',
  summary: 'List every organization with its id, plan and number of members',
  usage: 'org:list',
  options: {},
  async run(db) {
    const orgs = await listOrganizations(db)
    const rows = orgs.map((o) => ({ ...o, createdAt: o.createdAt.toISOString() }))
    const text =
      rows.length === 0
        ? 'No organizations yet'
        : rows.map((o) => `${o.id}  ${o.plan.padEnd(4)}  ${o.members} member(s)  ${o.name}`).join('\n')
    return { json: { organizations: rows }, text }
  },
}

export const orgNetworkDetails: CliCommand = {
  name: 'org:network-details',
  summary: 'Show or change what ingest does with captured request details (docs/network-details.md)',
  usage: 'org:network-details --org ID [--policy redact|drop] [--redact-keys "word,word"]',
  options: { org: { type: 'string' }, policy: { type: 'string' }, 'redact-keys': { type: 'string' } },
  async run(db, values) {
    // Without --policy and --redact-keys it only shows the current setting.
    const result = await setNetworkPolicy(db, {
      organizationId: requireString(values, 'org', this.usage),
      policy: optionalString(values, 'policy'),
      redactKeys: optionalString(values, 'redact-keys'),
    })
    const keys = result.networkRedactKeys.length > 0 ? result.networkRedactKeys.join(', ') : 'none'
    return {
      json: { ...result },
      text: `Organization ${result.id}: network details ${result.networkDetails}, extra redacted key words: ${keys}`,
    }
  },
}
