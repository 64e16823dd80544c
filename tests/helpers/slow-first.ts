import path from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * A sequencer that starts the named files first, in the order given, then the rest as vitest
 * orders them (failed first, then longest last time, then largest). On a clean clone vitest has
 * no timings and starts the largest files first, so a small file that runs long (the dev
 * server's restart, a spawned CLI) started last and ran alone at the end while the other
 * workers sat idle. The lists are the slowest files of CI runs; a file missing from the run is
 * skipped.
 */
export function slowFirst(root: string, slowest: readonly string[]): typeof BaseSequencer {
  const rank = new Map(slowest.map((file, index) => [path.join(root, file), index]))
  return class SlowFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const ordered = await super.sort(files)
      const named = ordered
        .filter((file) => rank.has(file.moduleId))
        .sort((a, b) => (rank.get(a.moduleId) ?? 0) - (rank.get(b.moduleId) ?? 0))
      return [...named, ...ordered.filter((file) => !rank.has(file.moduleId))]
    }
  }
}
