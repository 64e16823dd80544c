/**
 * One occurrence of a problem as a detector reports it, before grouping. The store collapses
 * occurrences with the same fingerprint into one Finding (docs/design/analysis.md §4.2.3).
 */
import type { PageRef } from './page'
import type { PriorityInput } from './priority'
import type { ElementDescriptor, FindingKind } from './types'

export interface Trigger {
  element: ElementDescriptor
  timestamp: number
  url: string
}

export interface Problem {
  kind: FindingKind
  parts: string[]
  at: number
  /** The last user event that is part of the problem (a rage burst's last click): what the user did next starts after it. */
  until?: number
  /** Sequence number of the event that caused it: steps stop there. */
  seq: number
  page: PageRef
  trigger: Trigger | null
  evidence: Record<string, unknown>
  title: string
  /** What happened, as the last step reads it. */
  failure: string
  /** First sentence of the description; the store adds the occurrence figures. */
  summary: string
  priority: PriorityInput
  /** Requests: a later success of the same endpoint on the same page means it did not block. */
  successKey?: string
}
