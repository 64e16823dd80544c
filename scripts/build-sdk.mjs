/**
 * Builds the browser recorder (sdk/) with esbuild:
 *   sdk/dist/index.mjs  ES module for bundler users; rrweb stays an import. Code splitting:
 *                       the network details part is a chunk (sdk/dist/chunks/) that index.mjs
 *                       imports dynamically, only when `networkDetails` is set.
 *   sdk/dist/sdk.js     the script tag build served at /sdk.js: everything bundled, minified,
 *                       window.SessionReplay, auto-start from data attributes.
 *   sdk/dist/sdk-network.js  the script tag build's network details part, served at
 *                       /sdk-network.js; sdk.js adds it from its own directory when needed.
 *   sdk/dist/meta.json  esbuild metafile of sdk.js (bundle composition, used by the benchmark).
 *   sdk/dist/sdk.tgz    the npm package `@session-replay/sdk`, served at /sdk.tgz
 *                       (`npm install https://YOUR-SERVICE/sdk.tgz`): see scripts/sdk-package.mjs.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { BROWSER_TARGET, buildSdkPackage } from './sdk-package.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const src = path.join(root, 'sdk', 'src')
const dist = path.join(root, 'sdk', 'dist')
const target = BROWSER_TARGET

mkdirSync(dist, { recursive: true })
const started = Date.now()

// Chunk names carry a hash: old ones would pile up across builds.
rmSync(path.join(dist, 'chunks'), { recursive: true, force: true })
await build({
  entryPoints: [path.join(src, 'index.ts')],
  outdir: dist,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target,
  external: ['rrweb', '@rrweb/*'],
  sourcemap: true,
  logLevel: 'warning',
})

/** A minified script for a script tag, with its metafile for the sizes. */
const browserScript = (entry, file) =>
  build({
    entryPoints: [entry],
    outfile: path.join(dist, file),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target,
    minify: true,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  })

const standalone = await browserScript(path.join(src, 'standalone.ts'), 'sdk.js')
writeFileSync(path.join(dist, 'meta.json'), JSON.stringify(standalone.metafile))

const part = await browserScript(path.join(src, 'network-details', 'part.ts'), 'sdk-network.js')

const tarball = await buildSdkPackage({ root, outFile: path.join(dist, 'sdk.tgz'), target })

const sizeOf = (result, file) =>
  result.metafile.outputs[path.relative(process.cwd(), path.join(dist, file))]?.bytes
const size = sizeOf(standalone, 'sdk.js')
const partSize = sizeOf(part, 'sdk-network.js')
console.log(
  `sdk built in ${Date.now() - started} ms${size ? ` (sdk.js ${(size / 1024).toFixed(1)} KiB` : ''}${
    partSize ? `, sdk-network.js ${(partSize / 1024).toFixed(1)} KiB)` : size ? ')' : ''
  }, sdk.tgz ${(tarball.bytes / 1024).toFixed(1)} KiB`,
)
