import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { importsOf, isWithin, ROOT, resolveImport, sourceFiles } from '../helpers/import-graph'

/**
 * lib/ is read as folders that depend on each other one way (issue 35). Two folders that import
 * each other are a knot: neither can be read, tested or moved without the other, and a newcomer
 * cannot tell which one owns the idea. A file of lib/'s top level counts as a folder of its own.
 * Type-only imports count too: they couple the folders' vocabularies just the same. Within
 * lib/, no file may reach itself through its imports (an import circle).
 */

const LIB = path.join(ROOT, 'lib')

type Graph = Map<string, Set<string>>

function unitOf(file: string): string {
  const [first = '', ...rest] = path.relative(LIB, file).split(path.sep)
  return rest.length > 0 ? first : first.replace(/\.tsx?$/, '.ts')
}

function libGraph(): { files: Graph; units: Graph; sites: Map<string, string[]> } {
  const files: Graph = new Map()
  const units: Graph = new Map()
  const sites = new Map<string, string[]>()
  for (const file of sourceFiles(LIB)) {
    const targets = new Set<string>()
    files.set(file, targets)
    for (const { specifier, line } of importsOf(file)) {
      const target = resolveImport(file, specifier)
      if (!target || !isWithin(target, LIB)) continue
      targets.add(target)
      const from = unitOf(file)
      const to = unitOf(target)
      if (from === to) continue
      if (!units.has(from)) units.set(from, new Set())
      units.get(from)?.add(to)
      const key = `${from} -> ${to}`
      sites.set(key, [...(sites.get(key) ?? []), `lib/${path.relative(LIB, file)}:${line}`])
    }
  }
  return { files, units, sites }
}

/** Pairs of nodes that import each other, each pair once, sorted. */
function knots(graph: Graph): string[] {
  const found: string[] = []
  for (const [from, targets] of graph)
    for (const to of targets) if (from < to && graph.get(to)?.has(from)) found.push(`${from} <-> ${to}`)
  return found.sort()
}

/** Strongly connected groups of more than one node (Tarjan), each sorted. */
function circles(graph: Graph): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string) => {
    index.set(node, counter)
    low.set(node, counter)
    counter++
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0))
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = []
      let member: string | undefined
      do {
        member = stack.pop()
        if (member === undefined) break
        onStack.delete(member)
        group.push(member)
      } while (member !== node)
      if (group.length > 1) found.push(group.sort())
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

describe('lib/ folders', () => {
  const { files, units, sites } = libGraph()

  it('are found (the scan reads lib/, not an empty folder)', () => {
    expect(files.size).toBeGreaterThan(100)
    expect(units.size).toBeGreaterThan(20)
  })

  it('tie no knot: no two folders import each other', () => {
    const described = knots(units).map((pair) => {
      const [a, b] = pair.split(' <-> ')
      return `${pair}: ${[...(sites.get(`${a} -> ${b}`) ?? []), ...(sites.get(`${b} -> ${a}`) ?? [])].join(', ')}`
    })
    expect(described).toEqual([])
  })

  it('hold no import circle between files', () => {
    const found = circles(files).map((group) => group.map((file) => path.relative(ROOT, file)).join(' -> '))
    expect(found).toEqual([])
  })

  it('would notice a planted knot and a planted circle', () => {
    const planted: Graph = new Map([
      ['analysis', new Set(['symbolication'])],
      ['symbolication', new Set(['analysis', 'storage'])],
      ['storage', new Set<string>()],
    ])
    expect(knots(planted)).toEqual(['analysis <-> symbolication'])
    const ring: Graph = new Map([
      ['a.ts', new Set(['b.ts'])],
      ['b.ts', new Set(['c.ts'])],
      ['c.ts', new Set(['a.ts'])],
      ['d.ts', new Set(['a.ts'])],
    ])
    expect(circles(ring)).toEqual([['a.ts', 'b.ts', 'c.ts']])
  })
})
