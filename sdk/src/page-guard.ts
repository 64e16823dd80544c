/// <reference lib="dom" />
import { record } from 'rrweb'
import { createMutationGuard, type MutationGuard } from './mutation-guard'
import type { ResolvedOptions } from './options'

/**
 * The mutation guard of this window's rrweb recording, as the options ask (null when off). The
 * guard itself takes rrweb's pieces as dependencies so its unit tests can give it fakes.
 */
export function pageGuard(
  options: ResolvedOptions,
  win: Window,
  log: (m: string) => void,
): MutationGuard | null {
  if (!options.mutationGuard) return null
  return createMutationGuard({
    maxMutationsPerSecond: options.mutationGuard.maxMutationsPerSecond,
    mirror: record.mirror,
    addCustomEvent: record.addCustomEvent,
    takeFullSnapshot: record.takeFullSnapshot,
    doc: win.document,
    win,
    log,
  })
}
