import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import vm from 'node:vm'
import { build } from 'esbuild'
import type { MinifiedFrame } from '@/lib/analysis/frames'

export interface Bundle {
  js: string
  /** The map's JSON as esbuild wrote it (sources relative to the bundle: `../src/x.ts`). */
  map: string
}

/**
 * Minifies `files` (path under src/ → source) from `entry` with esbuild, as a production
 * build would: one IIFE, identifiers renamed, an external map with sourcesContent.
 */
export async function bundle(
  files: Record<string, string>,
  entry: string,
  options: { sourcesContent?: boolean } = {},
): Promise<Bundle> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sm-bundle-'))
  try {
    for (const [name, text] of Object.entries(files)) {
      const file = path.join(dir, 'src', name)
      mkdirSync(path.dirname(file), { recursive: true })
      writeFileSync(file, text)
    }
    const result = await build({
      entryPoints: [path.join(dir, 'src', entry)],
      bundle: true,
      minify: true,
      format: 'iife',
      sourcemap: 'external',
      sourcesContent: options.sourcesContent ?? true,
      write: false,
      outdir: path.join(dir, 'out'),
      logLevel: 'silent',
    })
    const js = result.outputFiles.find((file) => file.path.endsWith('.js'))!.text
    const map = result.outputFiles.find((file) => file.path.endsWith('.js.map'))!.text
    return { js, map }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Runs the bundle as the browser would load it from `url`, then `call` in its global scope,
 * and returns the thrown error's stack frames in that file, top first, with V8's positions.
 * The frames are read from V8's call sites in the bundle's own realm: the test runner's
 * stack rewriting (source-map support) must not touch them.
 */
export function stackOf(js: string, url: string, call: string): MinifiedFrame[] {
  const context = vm.createContext({})
  vm.runInContext(js, context, { filename: url })
  const capture = `(() => {
    Error.prepareStackTrace = (_, sites) => sites.map((site) => ({
      fn: site.getFunctionName() ?? '', url: site.getFileName(), line: site.getLineNumber(), column: site.getColumnNumber(),
    }))
    try { ${call} } catch (error) { return error.stack } finally { Error.prepareStackTrace = undefined }
    throw new Error('the call did not throw')
  })()`
  const frames = vm.runInContext(capture, context, { filename: 'test-caller.js' }) as MinifiedFrame[]
  return JSON.parse(JSON.stringify(frames.filter((frame) => frame.url === url)))
}
