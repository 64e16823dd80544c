import { createSignal } from '@/lib/signals/create-signal'
import { type CliCommand, requireString } from '../command'

export const signalCreate: CliCommand = {
  name: 'signal:create',
  summary: 'Create a signal (backfilled over the last 30 days by the background jobs)',
  usage: 'signal:create --org ID --name N --prompt P',
  options: { org: { type: 'string' }, name: { type: 'string' }, prompt: { type: 'string' } },
  async run(db, values) {
    const { signal } = await createSignal(db, {
      organizationId: requireString(values, 'org', this.usage),
      name: requireString(values, 'name', this.usage),
      prompt: requireString(values, 'prompt', this.usage),
    })
    return {
      json: { ...signal },
      text: `Created signal "${signal.name}" (id ${signal.id}); backfill ${signal.backfillStatus}`,
    }
  },
}
