/**
 * Builds the browser recorder (sdk/) with esbuild:
 *   sdk/dist/index.mjs  ES module for bundler users; rrweb stays an import.
 *   sdk/dist/sdk.js     the script tag build served at /sdk.js: everything bundled, minified,
 *                       window.SessionReplay, auto-start from data attributes.
 *   sdk/dist/meta.json  esbuild metafile of sdk.js (bundle composition, used by the benchmark).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const src = path.join(root, 'sdk', 'src')
const dist = path.join(root, 'sdk', 'dist')
// Browsers with CompressionStream-era JavaScript; older ones still run it (gzip is optional).
const target = ['es2020', 'chrome80', 'firefox78', 'safari14', 'edge80']

mkdirSync(dist, { recursive: true })
const started = Date.now()

await build({
  entryPoints: [path.join(src, 'index.ts')],
  outfile: path.join(dist, 'index.mjs'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target,
  external: ['rrweb', '@rrweb/*'],
  sourcemap: true,
  logLevel: 'warning',
})

const standalone = await build({
  entryPoints: [path.join(src, 'standalone.ts')],
  outfile: path.join(dist, 'sdk.js'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target,
  minify: true,
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
})
writeFileSync(path.join(dist, 'meta.json'), JSON.stringify(standalone.metafile))

const size = standalone.metafile.outputs[path.relative(process.cwd(), path.join(dist, 'sdk.js'))]?.bytes
console.log(
  `sdk built in ${Date.now() - started} ms${size ? ` (sdk.js ${(size / 1024).toFixed(1)} KiB)` : ''}`,
)
