import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

/**
 * The project's own reading of its import graph, shared by the layering tests: imports are read
 * with the TypeScript parser (dynamic `import()`, `require()` and `import('…')` types included)
 * so none hides behind formatting, and `@/` and relative specifiers resolve to files the way the
 * compiler resolves them.
 */

export const ROOT = path.resolve(import.meta.dirname, '../..')

export interface ImportSite {
  specifier: string
  line: number
  /** `import type …`, `export type … from` or an `import('…')` type: erased at run time. */
  typeOnly: boolean
}

/** Every .ts/.tsx file under `dir` (declaration files left out), skipping the folders in `skip`. */
export function sourceFiles(dir: string, skip: readonly string[] = []): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      if (!skip.includes(full) && entry.name !== 'node_modules') files.push(...sourceFiles(full, skip))
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full)
  }
  return files
}

/** Every module specifier a source text names, with its line and whether it is erased at run time. */
export function importsOfSource(file: string, text: string): ImportSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: ImportSite[] = []
  const add = (node: ts.Node, typeOnly: boolean) => {
    if (ts.isStringLiteralLike(node))
      found.push({
        specifier: node.text,
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        typeOnly,
      })
  }
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, node.importClause?.isTypeOnly === true)
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) add(node.moduleSpecifier, node.isTypeOnly)
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression, node.isTypeOnly)
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0]
    )
      add(node.arguments[0], false)
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node.argument.literal, true)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Every module specifier a file names. */
export function importsOf(file: string): ImportSite[] {
  return importsOfSource(file, readFileSync(file, 'utf8'))
}

/**
 * The project file a specifier names, or null for a package (`next`, `node:fs`, …). A project
 * specifier that names no file still answers the path it would be, so a planted import of a file
 * that does not exist is judged by where it points.
 */
export function resolveImport(from: string, specifier: string): string | null {
  const target = specifier.startsWith('@/')
    ? path.join(ROOT, specifier.slice(2))
    : specifier.startsWith('.')
      ? path.resolve(path.dirname(from), specifier)
      : null
  if (!target) return null
  const base = target.replace(/\.(m?js|jsx)$/, '')
  for (const candidate of [
    target,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(target, 'index.ts'),
    path.join(target, 'index.tsx'),
  ])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  return target
}

/** Whether `file` is `dir` itself or inside it. */
export function isWithin(file: string, dir: string): boolean {
  return file === dir || file.startsWith(`${dir}${path.sep}`)
}
