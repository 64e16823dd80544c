import path from 'node:path'
import { InvalidInputError } from '@/lib/errors'

/** A minified file of an upload: its relative path and the map its comment names, if any. */
export interface MinifiedRef {
  path: string
  sourceMappingUrl: string | null
}

/**
 * Where a `sourceMappingURL` written in the file at `fromPath` points, as a path of the
 * upload: relative references resolve against the file's folder (`relative`); an absolute
 * URL or a root-relative path (`absolute`) matches a map whose path it ends with, since the
 * upload's paths are relative to some folder of the site. Inline `data:` maps name no part.
 */
export function resolveMapReference(
  fromPath: string,
  reference: string,
): { kind: 'relative' | 'absolute'; path: string } | null {
  const bare = reference.split(/[?#]/, 1)[0] ?? ''
  if (bare === '' || /^data:/i.test(bare)) return null
  const origin = /^[a-z][\w+.-]*:\/\/[^/]*/i.exec(bare)
  if (origin) return { kind: 'absolute', path: bare.slice(origin[0].length).replace(/^\/+/, '') }
  if (bare.startsWith('/')) return { kind: 'absolute', path: bare.replace(/^\/+/, '') }
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromPath), bare))
  if (joined.startsWith('../') || joined === '..') return null
  return { kind: 'relative', path: joined }
}

function names(reference: { kind: 'relative' | 'absolute'; path: string } | null, mapPath: string): boolean {
  if (!reference) return false
  if (reference.kind === 'relative') return reference.path === mapPath
  return reference.path === mapPath || reference.path.endsWith(`/${mapPath}`)
}

/**
 * Pairs every map with the minified file it describes (docs/source-maps.md, "Pairing"): the
 * part named by the map's path without `.map`, else the one minified part whose
 * `sourceMappingURL` names the map. Answers, per map path, the path of its minified file —
 * the map's path without `.map` when no part was paired, which is where bundlers put it.
 * Two maps that would describe the same file refuse the upload: one of them would be lost.
 */
export function pairMaps(mapPaths: string[], minified: MinifiedRef[]): Map<string, string> {
  const byPath = new Map(minified.map((m) => [m.path, m]))
  const taken = new Set<string>()
  const pairs = new Map<string, string>()
  const unpaired: string[] = []
  for (const mapPath of mapPaths) {
    const target = mapPath.slice(0, -'.map'.length)
    if (byPath.has(target)) {
      pairs.set(mapPath, target)
      taken.add(target)
    } else unpaired.push(mapPath)
  }
  const references = minified
    .filter((m) => !taken.has(m.path) && m.sourceMappingUrl !== null)
    .map((m) => ({ path: m.path, reference: resolveMapReference(m.path, m.sourceMappingUrl ?? '') }))
  for (const mapPath of unpaired) {
    const naming = references.filter((r) => names(r.reference, mapPath))
    if (naming.length > 1)
      throw new InvalidInputError(
        `${mapPath}: named by the sourceMappingURL of more than one file (${naming
          .slice(0, 3)
          .map((n) => n.path)
          .join(', ')}); upload each map beside its own file (name.js and name.js.map)`,
      )
    pairs.set(mapPath, naming[0]?.path ?? mapPath.slice(0, -'.map'.length))
  }
  const seen = new Map<string, string>()
  for (const [mapPath, target] of pairs) {
    const other = seen.get(target)
    if (other)
      throw new InvalidInputError(`${other} and ${mapPath} both describe ${target}; upload one map per file`)
    seen.set(target, mapPath)
  }
  return pairs
}
