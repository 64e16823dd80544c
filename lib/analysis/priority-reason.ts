/**
 * Why a finding got its priority, in one short line the issue page, the Data API and MCP
 * show (issue 15): the base for its kind, then each adjustment of §4.5 that applied, and
 * what the user did next — also when that did not raise it, so "not blocking" is explained.
 */
import type { IssuePriority } from '@/db/schema'
import { clipLabel, type FollowUp, followUpSentence, isBlocking } from './follow-up'
import { computePriority, type PriorityInput } from './priority'
import type { FindingKind } from './types'
import { isCriticalPath } from './url'

const BASES: Record<FindingKind, Partial<Record<IssuePriority, string>>> = {
  js_error: { high: 'uncaught errors start at high', low: '“Script error.” from another origin stays low' },
  console_error: { medium: 'console errors start at medium' },
  network_error: {
    high: 'a failed request the user started starts at high',
    medium: 'a failed background request starts at medium',
    low: 'client errors and rate limits start at low',
  },
  rage_click: {
    high: 'rage clicks on a control start at high',
    medium: 'rage clicks on a plain element start at medium',
  },
  dead_click: {
    medium: 'an unresponsive button or link starts at medium',
    low: 'an element that only looks clickable starts at low',
  },
}

export interface ExplainedPriority {
  priority: IssuePriority
  reason: string
}

export function explainPriority(
  kind: FindingKind,
  input: PriorityInput,
  followUp: FollowUp,
): ExplainedPriority {
  const blocking = isBlocking(followUp)
  const priority = computePriority(input, blocking)
  const base = BASES[kind][input.base] ?? `${kind.replace('_', ' ')}s start at ${input.base}`
  const parts = [capitalise(base)]
  if (!input.fixed) {
    const critical = input.paths.find(isCriticalPath)
    if (critical) parts.push(`+1: ${clipLabel(critical)} is a critical path`)
    parts.push(
      blocking ? `+1 blocking: ${followUpSentence(followUp)}` : `not blocking: ${followUpSentence(followUp)}`,
    )
    if (input.thirdParty) parts.push('−1: it comes from another site')
  }
  return { priority, reason: `${parts.join('; ')}.` }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
