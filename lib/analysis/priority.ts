/**
 * Priority (docs/design/analysis.md §4.5): a base by kind, then in order critical path +1, blocking +1
 * and third-party noise −1, clamped to the scale after each step. Breadth is the issue
 * layer's, across sessions; this module sees one session.
 */
import type { IssuePriority } from '@/db/schema'
import { isCriticalPath } from './url'

const SCALE: readonly IssuePriority[] = ['low', 'medium', 'high', 'critical']

export interface PriorityInput {
  base: IssuePriority
  /** Page path and, for requests, the request path: either on a critical path raises it. */
  paths: string[]
  thirdParty: boolean
  /** `Script error.` stays one low group whatever page it is on (§4.3). */
  fixed?: boolean
}

export function shift(priority: IssuePriority, by: number): IssuePriority {
  const index = Math.min(SCALE.length - 1, Math.max(0, SCALE.indexOf(priority) + by))
  return SCALE[index]!
}

export function computePriority(input: PriorityInput, blocking: boolean): IssuePriority {
  if (input.fixed) return input.base
  let priority = input.base
  if (input.paths.some(isCriticalPath)) priority = shift(priority, 1)
  if (blocking) priority = shift(priority, 1)
  if (input.thirdParty) priority = shift(priority, -1)
  return priority
}

/** Base for a failed request (§4.5): user-initiated 5xx/failures are high, background ones medium. */
export function networkBase(status: number, method: string, afterClick: boolean): IssuePriority {
  if (status !== 0 && status < 500) return 'low'
  const writes = method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE'
  return writes || afterClick ? 'high' : 'medium'
}
