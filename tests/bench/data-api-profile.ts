import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * Reads the V8 CPU profile(s) a `--cpu-prof` server wrote and sums self time per function and
 * per package, so `bench:data-api -- --cpu-prof` says what dominates a request without opening
 * the profile in a viewer (the file is kept for that).
 */

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

export interface ProfileSummary {
  file: string
  totalMs: number
  topFunctions: { name: string; selfMs: number; percent: number }[]
  /** Time with the function anywhere on the stack (what it and everything it calls cost). */
  topInclusive: { name: string; selfMs: number; percent: number }[]
  byPackage: { name: string; selfMs: number; percent: number }[]
}

/** "next", "drizzle-orm", "postgres", "(node)", "(app)", "(gc)", ... from a frame's script URL. */
function packageOf(url: string, functionName: string): string {
  if (functionName === '(garbage collector)') return '(gc)'
  if (functionName === '(idle)' || functionName === '(program)') return functionName
  const modules = url.lastIndexOf('node_modules/')
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/')
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? '?')
  }
  if (url.startsWith('node:') || url === '') return '(node)'
  // Next bundles our code and its own compiled modules into .next/server chunks.
  if (url.includes('/.next/')) return '(app bundle)'
  return '(other)'
}

export async function summarizeProfiles(dir: string, top = 25): Promise<ProfileSummary[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'))
  const summaries: ProfileSummary[] = []
  for (const file of files) {
    const profile = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as CpuProfile
    const byId = new Map(profile.nodes.map((n) => [n.id, n]))
    const parent = new Map<number, number>()
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
    const nameOf = (frame: ProfileNode['callFrame']) => {
      const where = frame.url
        ? `${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`
        : ''
      return `${frame.functionName || '(anonymous)'} ${where}`.trim()
    }
    const selfUs = new Map<number, number>()
    for (const [i, id] of profile.samples.entries())
      selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
    const functions = new Map<string, number>()
    const packages = new Map<string, number>()
    let total = 0
    for (const [id, us] of selfUs) {
      const frame = byId.get(id)?.callFrame
      if (!frame || frame.functionName === '(idle)') continue
      total += us
      const name = nameOf(frame)
      functions.set(name, (functions.get(name) ?? 0) + us)
      const pkg = packageOf(frame.url, frame.functionName)
      packages.set(pkg, (packages.get(pkg) ?? 0) + us)
    }
    const inclusive = new Map<string, number>()
    for (const [id, us] of selfUs) {
      if (byId.get(id)?.callFrame.functionName === '(idle)') continue
      const seen = new Set<string>()
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at)?.callFrame
        if (frame) seen.add(nameOf(frame))
      }
      for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + us)
    }
    const rank = (m: Map<string, number>, n: number) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([name, us]) => ({
          name,
          selfMs: Math.round(us / 100) / 10,
          percent: Math.round((us / Math.max(1, total)) * 1000) / 10,
        }))
    summaries.push({
      file: path.join(dir, file),
      totalMs: Math.round(total / 1000),
      topFunctions: rank(functions, top),
      topInclusive: rank(inclusive, top * 3),
      byPackage: rank(packages, 15),
    })
  }
  return summaries
}
