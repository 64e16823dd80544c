import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { check, type Diagnostics } from 'recheck'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * Every regular expression in lib/ (and in the network-details redaction of sdk/, which ingest
 * runs too) must match in linear time whatever the input (issue 14):
 * strings from an ingest key holder reach many of them, and one pattern that backtracks turns
 * a batch into minutes of blocked CPU. The patterns are found with the TypeScript parser, not
 * a text search, so none can hide behind formatting, and each one is proven safe by recheck.
 */

const ROOT = path.resolve(import.meta.dirname, '../..')
const LIB = path.join(ROOT, 'lib')
/** The recorder's redaction, which ingest runs again on every batch that carries network details. */
const REDACTION = path.join(ROOT, 'sdk/src/network-details')

interface FoundPattern {
  /** `lib/x/y.ts:12`, what a failure names. */
  where: string
  source: string
  flags: string
}

interface DynamicPattern {
  where: string
  /** The pattern argument as written, which is what the allowlist names. */
  argument: string
}

/**
 * `new RegExp(x)` with a pattern built at run time cannot be checked statically. Each one has
 * to be listed here with the reason it is safe; it is matched by file and argument text.
 * None exists today: the one in dom/document.ts became a scanner.
 */
const DYNAMIC_ALLOWLIST: readonly { file: string; argument: string; reason: string }[] = []

/** String methods that turn a string argument into a regular expression. */
const REGEX_STRING_METHODS = new Set(['match', 'matchAll', 'search'])

function sourceFiles(dir: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) files.push(...sourceFiles(full))
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full)
  }
  return files
}

function literalText(node: ts.Node | undefined): string | null {
  if (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) return node.text
  return null
}

function isRegExpConstructor(node: ts.Expression): boolean {
  if (ts.isIdentifier(node)) return node.text === 'RegExp'
  return ts.isPropertyAccessExpression(node) && node.name.text === 'RegExp'
}

function scan(file: string): { patterns: FoundPattern[]; dynamic: DynamicPattern[] } {
  const text = readFileSync(file, 'utf8')
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
  const relative = path.relative(ROOT, file)
  const patterns: FoundPattern[] = []
  const dynamic: DynamicPattern[] = []
  const where = (node: ts.Node) =>
    `${relative}:${sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1}`

  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText(sourceFile)
      const end = literal.lastIndexOf('/')
      patterns.push({ where: where(node), source: literal.slice(1, end), flags: literal.slice(end + 1) })
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      isRegExpConstructor(node.expression)
    ) {
      const [patternArg, flagsArg] = node.arguments ?? []
      const source = literalText(patternArg)
      const flags = flagsArg === undefined ? '' : literalText(flagsArg)
      // `new RegExp(/re/)` copies a literal the walk finds anyway.
      const copiesLiteral =
        patternArg?.kind === ts.SyntaxKind.RegularExpressionLiteral && flagsArg === undefined
      if (source !== null && flags !== null) {
        patterns.push({ where: where(node), source, flags })
      } else if (!copiesLiteral) {
        const argument = node.arguments?.map((arg) => arg.getText(sourceFile)).join(', ') ?? ''
        dynamic.push({ where: where(node), argument })
      }
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      REGEX_STRING_METHODS.has(node.expression.name.text)
    ) {
      const source = literalText(node.arguments[0])
      if (source !== null) patterns.push({ where: where(node), source, flags: '' })
    }
    ts.forEachChild(node, visit)
  }
  visit(sourceFile)
  return { patterns, dynamic }
}

const scanned = [...sourceFiles(LIB), ...sourceFiles(REDACTION)].map(scan)
const patterns = scanned.flatMap((result) => result.patterns)
const dynamic = scanned.flatMap((result) => result.dynamic)

/**
 * Generous per pattern (most take milliseconds); past it recheck answers `unknown`, which
 * fails. The fuzzer's own wall-clock limits are lifted so that only its step limits decide:
 * with them a loaded machine could turn a safe pattern into a reported attack or the reverse.
 */
const CHECK_PARAMS = {
  timeout: 60_000,
  attackTimeout: null,
  incubationTimeout: null,
  seedingTimeout: null,
} as const
const CHECK_CONCURRENCY = 2

describe('regular expressions in lib/', () => {
  it('finds the patterns (a walk that found none would prove nothing)', () => {
    expect(scanned.length).toBeGreaterThan(100)
    expect(patterns.length).toBeGreaterThan(100)
    // Spot checks: patterns known to exist in different shapes (literal, in a call, with flags).
    expect(patterns.some((p) => p.where.startsWith('lib/analysis/normalize.ts'))).toBe(true)
    expect(patterns.some((p) => p.flags.includes('i'))).toBe(true)
  })

  it('builds no pattern at run time unless the allowlist explains why it is safe', () => {
    const unexplained = dynamic.filter(
      (found) =>
        !DYNAMIC_ALLOWLIST.some(
          (allowed) => found.where.startsWith(`${allowed.file}:`) && found.argument === allowed.argument,
        ),
    )
    expect(unexplained).toEqual([])
  })

  // No database is involved and the proof takes ~15 s, so CI's pass on PostgreSQL (which sets
  // DATABASE_URL) leaves it to the pass on PGlite, which runs the same code.
  it.skipIf(Boolean(process.env.DATABASE_URL))(
    'proves every pattern free of super-linear backtracking (recheck)',
    async () => {
      // The same pattern in several places is checked once and reported at each.
      const places = new Map<string, FoundPattern[]>()
      for (const found of patterns) {
        const key = `${found.flags}/${found.source}`
        places.set(key, [...(places.get(key) ?? []), found])
      }
      const failures: string[] = []
      const verdict = async ([first, ...others]: FoundPattern[]): Promise<void> => {
        if (!first) return
        let detail: string
        try {
          const result: Diagnostics = await check(first.source, first.flags, CHECK_PARAMS)
          if (result.status === 'safe') return
          detail =
            result.status === 'vulnerable'
              ? `${result.complexity.type} backtracking, e.g. ${result.attack.pattern}`
              : `unknown (${result.error.kind})`
        } catch (error) {
          detail = String(error)
        }
        for (const found of [first, ...others])
          failures.push(`${found.where} /${found.source}/${found.flags}: ${detail}`)
      }
      // A few at a time: the checker is one agent process and the machine is shared.
      const queue = [...places.values()]
      const workers = Array.from({ length: CHECK_CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await verdict(next)
      })
      await Promise.all(workers)
      expect(failures.sort()).toEqual([])
    },
    10 * 60_000,
  )
})
