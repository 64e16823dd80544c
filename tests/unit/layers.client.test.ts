import { readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import {
  type ImportSite,
  importsOf,
  importsOfSource,
  isWithin,
  ROOT,
  resolveImport,
  sourceFiles,
} from '../helpers/import-graph'

/**
 * Client components are shipped to the browser (issue 35): what they import, and what that
 * imports in turn, must be code a browser can run and may see. A module that reaches the
 * database, the configuration's secrets, the server's log or Node's built-ins is server code; a
 * client component imports types and client-safe vocabulary only. Type-only imports are erased
 * at compile time and pass. A `'use server'` module is a boundary: the bundler hands the client
 * a reference to each action, never the module's code, so the walk stops there.
 */

const SCANNED = ['app', 'pages', 'lib'].map((dir) => path.join(ROOT, dir))
const SERVER_FOLDERS = ['db', 'lib/db'].map((dir) => path.join(ROOT, dir))
const SERVER_FILES = ['lib/config', 'lib/log'].map((file) => path.join(ROOT, file))
const SERVER_PACKAGES = ['drizzle-orm', 'postgres', '@electric-sql/pglite', 'next/headers', 'server-only']
const NODE_BUILTINS = new Set(builtinModules)

/** A text's leading directive (`'use client'`, `'use server'`), or null. */
function directiveOf(file: string, text: string): string | null {
  const first = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false).statements[0]
  return first && ts.isExpressionStatement(first) && ts.isStringLiteral(first.expression)
    ? first.expression.text
    : null
}

const directives = new Map<string, string | null>()
function directive(file: string): string | null {
  if (!directives.has(file)) directives.set(file, directiveOf(file, readFileSync(file, 'utf8')))
  return directives.get(file) ?? null
}

/** Why a package specifier is server code, or null. */
function serverPackage(specifier: string): string | null {
  if (specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0] ?? ''))
    return 'a Node built-in'
  const match = SERVER_PACKAGES.find((name) => specifier === name || specifier.startsWith(`${name}/`))
  if (match) return match
  // next-auth's root and server entry points read the request; next-auth/react is its client part.
  if ((specifier === 'next-auth' || specifier.startsWith('next-auth/')) && specifier !== 'next-auth/react')
    return 'next-auth (server)'
  return null
}

/** Why a project file is server code, or null. */
function serverFile(file: string): string | null {
  const folder = SERVER_FOLDERS.find((dir) => isWithin(file, dir))
  if (folder) return path.relative(ROOT, folder)
  const bare = file.replace(/\.tsx?$/, '')
  const named = SERVER_FILES.find((server) => bare === server)
  return named ? path.relative(ROOT, named) : null
}

const show = (file: string) => path.relative(ROOT, file)

/**
 * The chains from a client component to server code: `client -> … -> server module (why)`.
 * `imports` lets a test plant the client file's own imports without writing it to disk.
 */
function serverChains(client: string, imports: ImportSite[] = importsOf(client)): string[] {
  const found: string[] = []
  const seen = new Set<string>([client])
  // Each hop is the importing file and the line of its import: `a.tsx:4 -> lib/b.ts:1 -> node:crypto`.
  const queue: { file: string; hops: string[]; imports: ImportSite[] }[] = [
    { file: client, hops: [], imports },
  ]
  while (queue.length > 0) {
    const { file, hops, imports: sites } = queue.shift() as (typeof queue)[number]
    for (const { specifier, line, typeOnly } of sites) {
      if (typeOnly) continue
      const chain = [...hops, `${show(file)}:${line}`]
      const target = resolveImport(file, specifier)
      const why = target ? serverFile(target) : serverPackage(specifier)
      if (why) {
        found.push(`${chain.join(' -> ')} -> ${target ? show(target) : specifier} (${why})`)
        continue
      }
      if (!target || seen.has(target) || !/\.tsx?$/.test(target)) continue
      seen.add(target)
      if (directive(target) === 'use server') continue
      queue.push({ file: target, hops: chain, imports: importsOf(target) })
    }
  }
  return found
}

describe('client components', () => {
  const clients = SCANNED.flatMap((dir) => sourceFiles(dir)).filter(
    (file) => directive(file) === 'use client',
  )

  it('are found (the scan sees the dashboard forms)', () => {
    expect(clients.length).toBeGreaterThan(30)
    expect(clients.map(show)).toContain(
      path.join('app', '(dashboard)', 'settings', 'alerts', 'rule-form.tsx'),
    )
  })

  it('reach no server code through their imports', () => {
    expect(clients.flatMap((client) => serverChains(client))).toEqual([])
  })

  it('would notice a client component importing server code, directly or through a module', () => {
    const planted = path.join(ROOT, 'app', '(dashboard)', 'planted-form.tsx')
    const plant = (text: string) => serverChains(planted, importsOfSource(planted, text))
    expect(plant(`'use client'\nimport { issues } from '@/db/schema'\n`)).toEqual([
      'app/(dashboard)/planted-form.tsx:2 -> db/schema/index.ts (db)',
    ])
    // Through a module: the action wrapper's value import opens the database.
    expect(plant(`'use client'\nimport { ownersOnly } from '@/lib/http/actions'\n`)).toContainEqual(
      expect.stringMatching(
        /^app\/\(dashboard\)\/planted-form\.tsx:2 -> lib\/http\/actions\.ts:\d+ -> lib\/db\/index\.ts \(lib\/db\)$/,
      ),
    )
    expect(plant(`import { randomBytes } from 'node:crypto'`)).toEqual([
      'app/(dashboard)/planted-form.tsx:1 -> node:crypto (a Node built-in)',
    ])
    expect(plant(`import { eq } from 'drizzle-orm'`)).toEqual([
      'app/(dashboard)/planted-form.tsx:1 -> drizzle-orm (drizzle-orm)',
    ])
    expect(plant(`import { getConfig } from '@/lib/config'`)).toEqual([
      'app/(dashboard)/planted-form.tsx:1 -> lib/config.ts (lib/config)',
    ])
    expect(plant(`import { auth } from 'next-auth'`)).toEqual([
      'app/(dashboard)/planted-form.tsx:1 -> next-auth (next-auth (server))',
    ])
  })

  it('may import types from server code, client-safe packages and server actions', () => {
    const planted = path.join(ROOT, 'app', '(dashboard)', 'planted-form.tsx')
    const plant = (text: string) => serverChains(planted, importsOfSource(planted, text))
    expect(plant(`import type { Db } from '@/db/client'`)).toEqual([])
    expect(plant(`import { signOut } from 'next-auth/react'\nimport { useState } from 'react'`)).toEqual([])
    expect(plant(`import { renameOrganizationAction } from '@/app/(dashboard)/settings/actions'`)).toEqual([])
  })
})
