import { isUuid, NotFoundError } from '@/lib/errors'
import { getOrganization } from '@/lib/orgs/get-organization'
import { runErasure } from '@/lib/privacy/erase-person'
import { getErasure, requestErasure } from '@/lib/privacy/erasures'
import { parsePersonBody } from '@/lib/privacy/person-body'
import { rewrapSessionKeys } from '@/lib/sealing/data-keys'
import { getBlobStore } from '@/lib/storage'
import { type CliCommand, optionalString, requireString, UsageError } from '../command'

const listed = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ') || 'nothing'

/**
 * Erases one person (docs/privacy.md#erasure). Without --wait the request is queued like the
 * Data API's and a server's job runs it; with --wait this process runs it to its end (the
 * queued job then finds it completed and does nothing).
 */
export const privacyErase: CliCommand = {
  name: 'privacy:erase',
  summary: 'Erase every session of one person and what was derived from them',
  usage: 'privacy:erase --org ID (--email E | --user-id U | --anonymous-id A) [--wait]',
  options: {
    org: { type: 'string' },
    email: { type: 'string' },
    'user-id': { type: 'string' },
    'anonymous-id': { type: 'string' },
    wait: { type: 'boolean' },
  },
  async run(db, values) {
    const organizationId = requireString(values, 'org', this.usage)
    if (!isUuid(organizationId)) throw new NotFoundError(`No organization ${organizationId}`)
    const body = Object.fromEntries(
      (
        [
          ['email', 'email'],
          ['userId', 'user-id'],
          ['anonymousId', 'anonymous-id'],
        ] as const
      ).flatMap(([field, option]) => {
        const value = optionalString(values, option)
        return value === undefined ? [] : [[field, value]]
      }),
    )
    if (Object.keys(body).length !== 1) throw new UsageError(`Name exactly one person. Usage: ${this.usage}`)
    const person = parsePersonBody(body)
    await getOrganization(db, organizationId)
    const actor = { organizationId, actorType: 'system' as const, actorId: 'cli' }
    const requested = await requestErasure(db, actor, person)
    if (values.wait !== true)
      return {
        json: { erasure: requested },
        text: `Erasure ${requested.id} queued (due by ${requested.dueAt}); a server's jobs run it, or run this command again with --wait`,
      }
    await runErasure({ db, blobs: getBlobStore() }, { organizationId, erasureId: requested.id })
    const done = await getErasure(db, organizationId, requested.id)
    return { json: { erasure: done }, text: `Erasure ${done.id} ${done.status}: ${listed(done.counts)}` }
  },
}

/**
 * Key rotation (docs/privacy.md#key-rotation): re-wraps every session data key under the
 * first key of DATA_ENCRYPTION_KEYS, after which older keys can leave the configuration.
 */
export const privacyRotateKeys: CliCommand = {
  name: 'privacy:rotate-keys',
  summary: 'Re-wrap every session data key under the active DATA_ENCRYPTION_KEYS key',
  usage: 'privacy:rotate-keys',
  options: {},
  async run(db) {
    const { rewrapped } = await rewrapSessionKeys(db)
    return { json: { rewrapped }, text: `Re-wrapped ${rewrapped} session data key(s) under the active key` }
  },
}
