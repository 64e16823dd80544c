import type { AutomationKind } from '@/db/schema'
import { userAgentAutomation } from '@/sdk/src/automation'
import type { ReplayBatch } from './schema'

/**
 * Whether a batch comes from automated traffic (docs/hostile-input.md#automated-traffic): what
 * the recorder said (`metadata.automation`), else the user agent it reported, else the
 * request's own User-Agent header, so that a recorder built before the field existed is
 * covered too. The user-agent check is the recorder's own (sdk/src/automation.ts), bounded
 * to its first kilobyte before it is read.
 *
 * Nothing here can make a person's session count: a sender can only mark its own traffic as
 * automated, which hides it, and anyone able to send it could as well not send it at all.
 */
export function batchAutomation(batch: ReplayBatch, requestUserAgent: string | null): AutomationKind | null {
  return (
    batch.metadata?.automation ??
    userAgentAutomation(batch.metadata?.userAgent) ??
    userAgentAutomation(requestUserAgent)
  )
}
