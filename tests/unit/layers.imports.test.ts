import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * Domain code (lib/ outside lib/http) is plain TypeScript that the CLI, tests and background
 * functions can call (issue 16): it imports nothing from Next and nothing from the HTTP layer.
 * Imports are read with the TypeScript parser, dynamic `import()` included, so none hides
 * behind formatting.
 */

const ROOT = path.resolve(import.meta.dirname, '../..')
const LIB = path.join(ROOT, 'lib')
const HTTP = path.join(LIB, 'http')

function sourceFiles(dir: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      if (full !== HTTP) files.push(...sourceFiles(full))
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full)
  }
  return files
}

/** Every module specifier a file names: import/export-from declarations, import() and require(). */
function specifiers(file: string): { specifier: string; line: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: { specifier: string; line: number }[] = []
  const add = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node))
      found.push({
        specifier: node.text,
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      })
  }
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      add(node.moduleSpecifier)
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression)
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0]
    )
      add(node.arguments[0])
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Why a specifier is out of bounds for domain code, or null when it is fine. */
function forbidden(file: string, specifier: string): string | null {
  if (specifier === 'next' || specifier.startsWith('next/')) return 'Next'
  const target = specifier.startsWith('@/')
    ? path.join(ROOT, specifier.slice(2))
    : specifier.startsWith('.')
      ? path.resolve(path.dirname(file), specifier)
      : null
  if (target && (target === HTTP || target.startsWith(`${HTTP}${path.sep}`))) return 'lib/http'
  return null
}

describe('domain code', () => {
  const files = sourceFiles(LIB)

  it('is found (the scan reads lib/, not an empty folder)', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files.some((f) => f.endsWith(path.join('lib', 'errors.ts')))).toBe(true)
  })

  it('imports nothing from next/* or lib/http', () => {
    const offences = files.flatMap((file) =>
      specifiers(file).flatMap(({ specifier, line }) => {
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
