#!/usr/bin/env node
// The npm registry this project's machines reach serves only the linux-x64 builds of
// platform-specific optional packages (biome, next/swc, rollup, esbuild, ...), so `npm install`
// writes a lockfile without entries for the other platforms, and `npm ci` then refuses it as
// "not in sync". This adds the entries npm would have written from the public registry:
// name, version, `optional`, and the os/cpu/libc read off the package name, so `npm ci`
// skips them on this platform exactly as it does with a lockfile made elsewhere.
// Run it after every `npm install` that changes the lockfile: `npm run lockfile:complete`.
import { readFileSync, writeFileSync } from 'node:fs'

const OS = [
  'darwin',
  'linux',
  'win32',
  'freebsd',
  'openbsd',
  'netbsd',
  'android',
  'sunos',
  'aix',
  'openharmony',
]
const CPU = [
  'x64',
  'arm64',
  'arm',
  'ia32',
  'loong64',
  'ppc64',
  'riscv64',
  's390x',
  'mips64el',
  'wasm32',
  'armv7',
]

function platformOf(name) {
  const tokens = name.split('/').pop().split(/[-_.]/)
  const os = tokens.find((t) => OS.includes(t))
  let cpu = tokens.find((t) => CPU.includes(t))
  if (tokens.includes('armv7') || tokens.includes('gnueabihf') || tokens.includes('musleabihf')) cpu = 'arm'
  if (tokens.includes('universal')) cpu = undefined
  const libc = tokens.some((t) => t.startsWith('musl'))
    ? 'musl'
    : tokens.some((t) => t.startsWith('gnu'))
      ? 'glibc'
      : undefined
  if (tokens.includes('wasm32') || tokens.includes('wasi')) return { cpu: ['wasm32'] }
  if (!os && !cpu) return null
  return {
    ...(os ? { os: [os] } : {}),
    ...(cpu ? { cpu: [cpu] } : {}),
    ...(libc && os === 'linux' ? { libc: [libc] } : {}),
  }
}

function resolves(packages, fromPath, name) {
  let base = fromPath
  for (;;) {
    if (packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true
    if (!base) return false
    const cut = base.lastIndexOf('/node_modules/')
    base = cut >= 0 ? base.slice(0, cut) : ''
  }
}

const file = process.argv[2] ?? 'package-lock.json'
const lock = JSON.parse(readFileSync(file, 'utf8'))
const added = []
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolves(lock.packages, path, name)) continue
    const platform = platformOf(name)
    if (!platform || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range)) {
      console.warn(`left alone: ${name}@${range} (optional dependency of ${path || 'the root'})`)
      continue
    }
    const target = lock.packages[`node_modules/${name}`]
      ? `${path}/node_modules/${name}`
      : `node_modules/${name}`
    lock.packages[target] = {
      version: range,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    }
    added.push(target)
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
)
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`${added.length} optional platform entries added to ${file}`)
