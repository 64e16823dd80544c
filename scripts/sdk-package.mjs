/**
 * The recorder as an npm package, `@session-replay/sdk`, packed into sdk/dist/sdk.tgz and served
 * at /sdk.tgz, so that `npm install https://YOUR-SERVICE/sdk.tgz` installs what the docs import.
 * The package has no dependencies: rrweb is bundled in. Its version is the service's, so an
 * installed recorder names the service build it came from.
 *
 *   package/package.json       main (CommonJS), module and exports (import, require, types)
 *   package/dist/index.mjs     ES module; the network details part is a chunk loaded on demand
 *   package/dist/index.cjs     CommonJS, everything in one file
 *   package/index.d.ts         sdk/index.d.ts: the calls, checked against sdk/src/index.ts
 *   package/src/options.d.ts   generated from sdk/src/options.ts: the option types themselves
 *   package/README.md          sdk/README.md
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { create } from 'tar'
import ts from 'typescript'

/** Browsers with CompressionStream-era JavaScript; older ones still run it (gzip is optional). */
export const BROWSER_TARGET = ['es2020', 'chrome80', 'firefox78', 'safari14', 'edge80']

/** What the package exports; the script tag's internal entry (`initWith`) stays out. */
const PUBLIC_EXPORTS = ['init', 'identify', 'stop', 'setConsent']
// npm's own fixed date for packed files: the same sources always make the same bytes (and ETag).
const PACKED_AT = new Date('1985-10-26T08:15:00.000Z')

/** sdk/src/options.ts as a declaration file; it imports nothing, so it stands alone in the package. */
function optionsDeclaration(src) {
  const file = path.join(src, 'options.ts')
  const program = ts.createProgram([file], {
    declaration: true,
    emitDeclarationOnly: true,
    strict: true,
    target: ts.ScriptTarget.ES2020,
    lib: ['lib.es2020.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
  })
  const problems = [...program.getSyntacticDiagnostics(), ...program.getDeclarationDiagnostics()]
  if (problems.length)
    throw new Error(ts.formatDiagnostics(problems, ts.createCompilerHost({})).slice(0, 2000))
  let text = ''
  program.emit(program.getSourceFile(file), (_name, output) => {
    text = output
  })
  if (!text) throw new Error('no declaration was emitted for sdk/src/options.ts')
  return text
}

function filesUnder(dir, prefix) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? filesUnder(path.join(dir, entry.name), `${prefix}/${entry.name}`)
        : [`${prefix}/${entry.name}`],
    )
    .sort()
}

/** A gzipped tar of `package/`, its files in a fixed order with fixed times and no owner. */
async function pack(stagingRoot) {
  const files = filesUnder(path.join(stagingRoot, 'package'), 'package')
  const chunks = []
  for await (const chunk of create({ cwd: stagingRoot, portable: true, mtime: PACKED_AT }, files))
    chunks.push(chunk)
  return gzipSync(Buffer.concat(chunks), { level: 9 })
}

/** Builds the package and writes it, packed, to `outFile`; returns its size in bytes. */
export async function buildSdkPackage({ root, outFile, target = BROWSER_TARGET }) {
  const sdk = path.join(root, 'sdk')
  const src = path.join(sdk, 'src')
  const manifest = JSON.parse(readFileSync(path.join(sdk, 'package.json'), 'utf8'))
  const service = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
  const staging = mkdtempSync(path.join(tmpdir(), 'sdk-package-'))
  try {
    const pkg = path.join(staging, 'package')
    const entry = path.join(staging, 'entry.mjs')
    writeFileSync(
      entry,
      `export { ${PUBLIC_EXPORTS.join(', ')} } from ${JSON.stringify(path.join(src, 'index.ts'))}\n`,
    )
    const common = {
      entryPoints: { index: entry },
      bundle: true,
      platform: 'browser',
      target,
      logLevel: 'warning',
    }
    await build({
      ...common,
      outdir: path.join(pkg, 'dist'),
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunks/[name]-[hash]',
      splitting: true,
      format: 'esm',
    })
    await build({ ...common, outfile: path.join(pkg, 'dist', 'index.cjs'), format: 'cjs' })

    mkdirSync(path.join(pkg, 'src'), { recursive: true })
    writeFileSync(path.join(pkg, 'src', 'options.d.ts'), optionsDeclaration(src))
    writeFileSync(path.join(pkg, 'index.d.ts'), readFileSync(path.join(sdk, 'index.d.ts')))
    writeFileSync(path.join(pkg, 'README.md'), readFileSync(path.join(sdk, 'README.md')))
    // No "type": the .mjs and .cjs extensions say which is which, and the one declaration
    // file serves both `import` and `require`.
    const packageJson = {
      name: manifest.name,
      version: service.version,
      description: manifest.description,
      main: './dist/index.cjs',
      module: './dist/index.mjs',
      types: './index.d.ts',
      exports: {
        '.': { types: './index.d.ts', import: './dist/index.mjs', require: './dist/index.cjs' },
        './package.json': './package.json',
      },
      sideEffects: false,
    }
    writeFileSync(path.join(pkg, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`)

    const tarball = await pack(staging)
    mkdirSync(path.dirname(outFile), { recursive: true })
    writeFileSync(outFile, tarball)
    return { bytes: tarball.byteLength }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

// `node scripts/sdk-package.mjs OUT.tgz` packs the package alone (tests, without touching sdk/dist).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outFile = process.argv[2]
  if (!outFile) throw new Error('usage: node scripts/sdk-package.mjs OUT.tgz')
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
  await buildSdkPackage({ root, outFile: path.resolve(outFile) })
}
