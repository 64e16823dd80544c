/**
 * The manual stays navigable: every relative link in README.md, CONTRIBUTING.md and docs/
 * reaches a file (and a heading, when it names one), and code comments cite design notes that
 * are in the repository (docs/design/), never notes beside it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = process.cwd()
const SKIPPED_DIRS = new Set(['node_modules', '.next', 'dist', '.data', 'test-results'])

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const found: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.next') || SKIPPED_DIRS.has(entry.name)) continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) found.push(...walk(full, keep))
    else if (keep(entry.name)) found.push(full)
  }
  return found
}

/** The lines of a markdown file outside fenced code blocks, with inline code blanked out. */
function proseLines(text: string): string[] {
  const lines: string[] = []
  let fenced = false
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('```')) {
      fenced = !fenced
      continue
    }
    if (!fenced) lines.push(line.replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length)))
  }
  return lines
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line)
    if (!heading?.[1]) continue
    const text = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

const manualFiles = [
  path.join(root, 'README.md'),
  path.join(root, 'CONTRIBUTING.md'),
  ...walk(path.join(root, 'docs'), (name) => name.endsWith('.md')),
]

describe('links in the manual', () => {
  it('covers the README, CONTRIBUTING.md and every page in docs/', () => {
    expect(manualFiles.map((file) => path.relative(root, file))).toEqual(
      expect.arrayContaining([
        'README.md',
        'CONTRIBUTING.md',
        'docs/architecture.md',
        'docs/design/README.md',
      ]),
    )
  })

  it.each(manualFiles.map((file) => [path.relative(root, file), file]))(
    '%s: every relative link resolves',
    (_, file) => {
      const broken: string[] = []
      for (const line of proseLines(readFileSync(file, 'utf8'))) {
        for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = match[1] ?? ''
          if (/^[a-z][a-z+.-]*:/i.test(target)) continue // https:, mailto:, ...
          const [pathPart = '', anchor] = target.split('#', 2)
          const resolved =
            pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart))
          if (!existsSync(resolved)) {
            broken.push(`${target}: no such file`)
            continue
          }
          if (!existsSync(resolved)) {
            if (anchor) broken.push(`${target}: a heading of a page that is not there yet`)
            continue
          }
          if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
            broken.push(`${target}: no heading with that anchor`)
        }
      }
      expect(broken).toEqual([])
    },
  )
})

const CODE = /\.(ts|tsx|mjs|cjs|js)$/
const codeFiles = [
  ...['lib', 'app', 'pages', 'db', 'server', 'sdk', 'tests', 'inngest', 'scripts', 'types']
    .map((dir) => path.join(root, dir))
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => walk(dir, (name) => CODE.test(name))),
  ...readdirSync(root)
    .filter((name) => CODE.test(name))
    .map((name) => path.join(root, name)),
]

describe('design notes cited by code', () => {
  const design = path.join(root, 'docs', 'design')

  it('never points outside the repository', () => {
    const outside: string[] = []
    for (const file of codeFiles) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          // Package paths such as '@modelcontextprotocol/sdk/shared/auth.js' are imports, not notes
          if (/\.\.\/shared\/|(?<![\w/])shared\/(design|spec)\//.test(line))
            outside.push(`${path.relative(root, file)}:${index + 1}`)
        })
    }
    expect(outside).toEqual([])
  })

  it('names pages, sections and decisions that exist in docs/design', () => {
    const missing: string[] = []
    const sections = (page: string) =>
      readFileSync(path.join(design, page), 'utf8')
        .split('\n')
        .map((line) => /^#{2,6} (\d+(?:\.\d+)*)[. ]/.exec(line)?.[1])
        .filter((number): number is string => number !== undefined)
    const analysisSections = new Set(sections('analysis.md'))
    const decisions = new Set(
      readFileSync(path.join(design, 'oauth-mcp.md'), 'utf8')
        .split('\n')
        .map((line) => /^(\d+)\. \*\*/.exec(line)?.[1])
        .filter((number): number is string => number !== undefined),
    )
    for (const file of codeFiles) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const where = `${path.relative(root, file)}:${index + 1}`
          for (const cited of line.matchAll(/docs\/design\/([\w-]+\.md)/g))
            if (!existsSync(path.join(design, cited[1] ?? ''))) missing.push(`${where}: ${cited[0]}`)
          if (line.includes('docs/design/analysis.md'))
            for (const section of line.matchAll(/§(\d+(?:\.\d+)*)/g))
              if (!analysisSections.has(section[1] ?? '')) missing.push(`${where}: analysis §${section[1]}`)
          const decision = /docs\/design\/oauth-mcp\.md decisions? (\d+)(?: and (\d+))?/.exec(line)
          for (const number of [decision?.[1], decision?.[2]])
            if (number !== undefined && !decisions.has(number)) missing.push(`${where}: decision ${number}`)
        })
    }
    expect(missing).toEqual([])
  })
})
