import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { importsOf, isWithin, ROOT, resolveImport, sourceFiles } from '../helpers/import-graph'

/**
 * Domain code (lib/ outside lib/http) is plain TypeScript that the CLI, tests and background
 * functions can call (issue 16): it imports nothing from Next and nothing from the HTTP layer.
 * Imports are read with the TypeScript parser, dynamic `import()` included, so none hides
 * behind formatting.
 */

const LIB = path.join(ROOT, 'lib')
const HTTP = path.join(LIB, 'http')

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
