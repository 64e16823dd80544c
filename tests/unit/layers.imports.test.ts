import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  importsOf,
  importsOfSource,
  isWithin,
  ROOT,
  resolveImport,
  sourceFiles,
} from '../helpers/import-graph'

/**
 * Domain code (lib/ outside lib/http) is plain TypeScript that the CLI, tests and background
 * functions can call (issue 16): it imports nothing from Next and nothing from the HTTP layer.
 * Imports are read with the TypeScript parser, dynamic `import()` included, so none hides
 * behind formatting.
 */

const LIB = path.join(ROOT, 'lib')
const HTTP = path.join(LIB, 'http')
const WIRING = path.join(ROOT, 'inngest')

/** Why a specifier is out of bounds for domain code, or null when it is fine. */
function forbidden(file: string, specifier: string): string | null {
  if (specifier === 'next' || specifier.startsWith('next/')) return 'Next'
  const target = resolveImport(file, specifier)
  if (target && isWithin(target, HTTP)) return 'lib/http'
  return null
}

describe('domain code', () => {
  const files = sourceFiles(LIB, [HTTP])

  it('is found (the scan reads lib/, not an empty folder)', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files.some((f) => f.endsWith(path.join('lib', 'errors.ts')))).toBe(true)
  })

  it('imports nothing from next/* or lib/http', () => {
    const offences = files.flatMap((file) =>
      importsOf(file).flatMap(({ specifier, line }) => {
        const why = forbidden(file, specifier)
        return why ? [`${path.relative(ROOT, file)}:${line} imports ${specifier} (${why})`] : []
      }),
    )
    expect(offences).toEqual([])
  })

  it('would notice such an import', () => {
    expect(forbidden(path.join(LIB, 'mcp', 'x.ts'), '@/lib/http/data-api')).toBe('lib/http')
    expect(forbidden(path.join(LIB, 'mcp', 'x.ts'), '../http/body')).toBe('lib/http')
    expect(forbidden(path.join(LIB, 'mcp', 'x.ts'), 'next/headers')).toBe('Next')
    expect(forbidden(path.join(LIB, 'mcp', 'x.ts'), 'next-auth')).toBeNull()
    expect(forbidden(path.join(LIB, 'mcp', 'x.ts'), '@/lib/httpish')).toBeNull()
  })
})

/**
 * inngest/ is the only composition root (issue 35): it builds the job list, the engine and the
 * adapters, and imports lib/. Nothing in lib/ imports it back, not even a type or a dynamic
 * import: what lib/ needs from the wiring is handed in (lib/cli's `CliWiring`, the handlers'
 * `deps()`), so the domain never depends on the list of jobs that call it.
 */
function wiringImports(file: string, text: string): string[] {
  return importsOfSource(file, text).flatMap(({ specifier, line }) => {
    const target = resolveImport(file, specifier)
    return target && isWithin(target, WIRING)
      ? [`${path.relative(ROOT, file)}:${line} imports ${specifier}`]
      : []
  })
}

describe('lib/', () => {
  const files = sourceFiles(LIB)

  it('imports nothing from inngest/, the composition root (static, dynamic or type-only)', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files.flatMap((file) => wiringImports(file, readFileSync(file, 'utf8')))).toEqual([])
  })

  it('would notice such an import', () => {
    const top = path.join(LIB, 'x.ts')
    expect(
      wiringImports(
        top,
        [
          "import { getJobsEngine } from '@/inngest/app'",
          "const later = () => import('../inngest/startup')",
          // The package of the same name, and lib/'s adapter for it, are not the folder.
          "import { serve } from 'inngest/next'",
          "import { toInngestFunction } from '@/lib/jobs/inngest'",
        ].join('\n'),
      ),
    ).toEqual(['lib/x.ts:1 imports @/inngest/app', 'lib/x.ts:2 imports ../inngest/startup'])
    const nested = path.join(LIB, 'cli', 'commands', 'x.ts')
    expect(wiringImports(nested, "import type { JobDeps } from '../../../inngest/jobs'")).toEqual([
      'lib/cli/commands/x.ts:1 imports ../../../inngest/jobs',
    ])
    expect(
      wiringImports(path.join(LIB, 'cli', 'x.ts'), "export type { JobDeps } from '../../inngest/jobs'"),
    ).toEqual(['lib/cli/x.ts:1 imports ../../inngest/jobs'])
  })
})
