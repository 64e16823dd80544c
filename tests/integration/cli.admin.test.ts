import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import type { Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openMigratedDatabase } from '@/db/migrate'
import { credentials, memberships, organizations, users } from '@/db/schema'
import { cliWiring, runAdminCli } from '@/inngest/cli'
import { serveAdminChannel } from '@/lib/cli/channel/serve'
import { commands } from '@/lib/cli/commands'
import { hashToken } from '@/lib/credentials/tokens'
import { verifyPassword } from '@/lib/users/password'
import { createTestDatabase, seedPgliteDataDir, type TestDatabase } from '../helpers/db'

/** Each test spawns `npm run admin` processes (20 s of CPU each); CI runs them on two busy cores. */
const CLI_TEST_TIMEOUT_MS = 360_000

const exec = promisify(execFile)
let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database.close()
})

/** Runs a command; `stdin` is what standard input holds (none at all when undefined). */
async function cliWithStdin(stdin: string | undefined, ...argv: string[]) {
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await runAdminCli(argv, {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: {},
    ...(stdin === undefined ? {} : { stdin: async () => stdin }),
    database,
  })
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') }
}

const cli = (...argv: string[]) => cliWithStdin(undefined, ...argv)

async function json(...argv: string[]) {
  return jsonWithStdin(undefined, ...argv)
}

async function jsonWithStdin(stdin: string | undefined, ...argv: string[]) {
  const result = await cliWithStdin(stdin, ...argv, '--json')
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  return JSON.parse(result.stdout) as Record<string, unknown>
}

async function tableCounts() {
  const [o] = await database.db.select({ n: count() }).from(organizations)
  const [u] = await database.db.select({ n: count() }).from(users)
  const [m] = await database.db.select({ n: count() }).from(memberships)
  const [c] = await database.db.select({ n: count() }).from(credentials)
  return { organizations: o!.n, users: u!.n, memberships: m!.n, credentials: c!.n }
}

describe('admin CLI', () => {
  it('org:create prints exactly the organization', async () => {
    // The installation's first organization starts on the highest plan; later ones on DEFAULT_PLAN (issue 34).
    const org = await json('org:create', '--name', 'Acme')
    expect(Object.keys(org).sort()).toEqual(['id', 'name', 'plan'])
    expect(org).toMatchObject({ name: 'Acme', plan: 'paid' })
    expect(await json('org:create', '--name', 'Second')).toMatchObject({ plan: 'free' })
    const paid = await json('org:create', '--name', 'Paid Co', '--plan', 'paid')
    expect(paid.plan).toBe('paid')
  })

  it('org:plan changes the plan', async () => {
    const org = await json('org:create', '--name', 'Planner')
    expect(await json('org:plan', '--org', String(org.id), '--plan', 'paid')).toEqual({
      id: org.id,
      plan: 'paid',
    })
    const [row] = await database.db
      .select()
      .from(organizations)
      .where(eq(organizations.id, String(org.id)))
    expect(row!.plan).toBe('paid')
  })

  it('user:create creates the user and the membership', async () => {
    const org = await json('org:create', '--name', 'Team')
    const user = await jsonWithStdin(
      'correct horse\n',
      'user:create',
      '--email',
      ' Ada@Example.COM ',
      '--password-stdin',
      '--org',
      String(org.id),
      '--role',
      'owner',
    )
    expect(Object.keys(user).sort()).toEqual(['email', 'id', 'orgId', 'role'])
    expect(user).toMatchObject({ email: 'ada@example.com', orgId: org.id, role: 'owner' })
    const [row] = await database.db
      .select()
      .from(users)
      .where(eq(users.id, String(user.id)))
    expect(row!.passwordHash).toMatch(/^scrypt\$/)
    expect(row!.passwordHash).not.toContain('correct horse')
  })

  it('user:create --password-stdin takes all of stdin, less one trailing newline', async () => {
    const org = await json('org:create', '--name', 'Stdin')
    const cases = [
      ['  spaced  password \n', '  spaced  password '],
      ['two newlines kept one\n\n', 'two newlines kept one\n'],
      ['windows line end\r\n', 'windows line end'],
      ['no newline at all', 'no newline at all'],
    ] as const
    for (const [i, [stdin, password]] of cases.entries()) {
      const user = await jsonWithStdin(
        stdin,
        'user:create',
        '--email',
        `stdin-${i}@example.com`,
        '--password-stdin',
        '--org',
        String(org.id),
      )
      const [row] = await database.db
        .select()
        .from(users)
        .where(eq(users.id, String(user.id)))
      expect(await verifyPassword(password, row!.passwordHash), JSON.stringify(stdin)).toBe(true)
      if (stdin !== password)
        expect(await verifyPassword(stdin, row!.passwordHash), JSON.stringify(stdin)).toBe(false)
    }
  })

  it('user:create --password still works, with a one-line warning on stderr', async () => {
    const org = await json('org:create', '--name', 'Scripted')
    const result = await cli(
      'user:create',
      '--email',
      'scripted@example.com',
      '--password',
      'long enough pw',
      '--org',
      String(org.id),
      '--json',
    )
    expect(result.code).toBe(0)
    expect(result.stderr).toBe(
      'Warning: --password is visible in the process list and shell history; prefer --password-stdin.',
    )
    const user = JSON.parse(result.stdout) as Record<string, unknown>
    expect(user).toMatchObject({ email: 'scripted@example.com', orgId: org.id, role: 'member' })
    const [row] = await database.db
      .select()
      .from(users)
      .where(eq(users.id, String(user.id)))
    expect(await verifyPassword('long enough pw', row!.passwordHash)).toBe(true)
  })

  it('user:create lists --password-stdin in its usage and in help', async () => {
    const help = await cli('help')
    expect(help.stdout).toContain('user:create')
    expect(help.stdout).toContain('--password-stdin | --password P')
  })

  it('--help works on every command and the operations manual lists every command', async () => {
    const manual = readFileSync(path.join(process.cwd(), 'docs', 'operations.md'), 'utf8')
    for (const command of commands) {
      const help = await cli(command.name, '--help')
      expect(help, command.name).toMatchObject({ code: 0, stderr: '' })
      expect(help.stdout).toContain(command.usage)
      expect(manual, command.name).toContain(`| \`${command.name}\``)
    }
  })

  it('org:list lists organizations; user:operator grants and revokes the operator role', async () => {
    const org = await json('org:create', '--name', 'Listed')
    const { organizations: listed } = (await json('org:list')) as { organizations: Record<string, unknown>[] }
    expect(listed).toContainEqual(
      expect.objectContaining({ id: org.id, name: 'Listed', plan: 'free', members: 0 }),
    )
    await jsonWithStdin(
      'long enough pw',
      'user:create',
      '--email',
      'op@example.com',
      '--password-stdin',
      '--org',
      String(org.id),
    )
    expect(await json('user:operator', '--email', 'OP@example.com')).toMatchObject({
      email: 'op@example.com',
      isOperator: true,
    })
    const [granted] = await database.db.select().from(users).where(eq(users.email, 'op@example.com'))
    expect(granted!.isOperator).toBe(true)
    expect(await json('user:operator', '--email', 'op@example.com', '--revoke')).toMatchObject({
      isOperator: false,
    })
    expect(await cli('user:operator', '--email', 'nobody@example.com')).toMatchObject({
      code: 1,
      stderr: 'User not found: nobody@example.com',
    })
  })

  it('key:create makes keys with the right prefix and scopes, stored only as a hash', async () => {
    const org = await json('org:create', '--name', 'Keys')
    const cases = [
      [['--type', 'ingest'], 'svc_pk_', ['ingest']],
      [['--type', 'api'], 'svc_api_', ['read:service']],
      [['--type', 'api', '--write'], 'svc_api_', ['read:service', 'write:issues']],
      [['--type', 'mcp'], 'svc_mcp_', ['read:service']],
    ] as const
    for (const [args, prefix, scopes] of cases) {
      const key = await json('key:create', '--org', String(org.id), ...args)
      expect(Object.keys(key).sort()).toEqual(['id', 'key', 'scopes', 'type'])
      expect(String(key.key).startsWith(prefix)).toBe(true)
      expect(String(key.key).length).toBeGreaterThan(prefix.length + 40)
      expect(key.scopes).toEqual(scopes)
      const [row] = await database.db
        .select()
        .from(credentials)
        .where(eq(credentials.id, String(key.id)))
      expect(row!.tokenHash).toBe(hashToken(String(key.key)))
      expect(JSON.stringify(row)).not.toContain(String(key.key))
      expect(row!.displayPrefix.startsWith(prefix)).toBe(true)
    }
  })

  it('key:revoke revokes once and keeps the first time', async () => {
    const org = await json('org:create', '--name', 'Revoker')
    const key = await json('key:create', '--org', String(org.id), '--type', 'api')
    const first = await json('key:revoke', '--id', String(key.id))
    expect(Object.keys(first).sort()).toEqual(['id', 'revokedAt'])
    expect(new Date(String(first.revokedAt)).toISOString()).toBe(first.revokedAt)
    const second = await json('key:revoke', '--id', String(key.id))
    expect(second.revokedAt).toBe(first.revokedAt)
  })

  it('prints a readable line without --json', async () => {
    const result = await cli('org:create', '--name', 'Readable')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Created organization "Readable" \(id [0-9a-f-]{36}, plan free\)$/)
  })

  const failures: [string, string[], RegExp, number, string?][] = [
    [
      'unknown organization id',
      ['key:create', '--org', '00000000-0000-4000-8000-000000000000', '--type', 'api'],
      /^Organization not found: 00000000/,
      1,
    ],
    [
      'malformed organization id',
      ['user:create', '--org', 'nope', '--email', 'x@y.io', '--password-stdin'],
      /^Organization not found: nope$/,
      1,
      'long enough pw\n',
    ],
    [
      'bad key type',
      ['key:create', '--org', '00000000-0000-4000-8000-000000000000', '--type', 'root'],
      /^Key type must be one of: ingest, api, mcp$/,
      1,
    ],
    [
      '--write on an ingest key',
      ['key:create', '--org', '00000000-0000-4000-8000-000000000000', '--type', 'ingest', '--write'],
      /issue status updates/,
      1,
    ],
    ['bad plan', ['org:create', '--name', 'X', '--plan', 'gold'], /^Plan must be one of: free, paid$/, 1],
    ['empty name', ['org:create', '--name', '   '], /^Missing --name/, 2],
    ['missing option', ['org:create'], /^Missing --name\. Usage: org:create --name N/, 2],
    ['unknown option', ['org:create', '--name', 'X', '--colour', 'red'], /^Unknown option '--colour'/, 2],
    ['unknown key id', ['key:revoke', '--id', '00000000-0000-4000-8000-000000000000'], /^Key not found/, 1],
    [
      'short password',
      [
        'user:create',
        '--org',
        '00000000-0000-4000-8000-000000000000',
        '--email',
        'x@y.io',
        '--password-stdin',
      ],
      /^Password must be at least 10 characters$/,
      1,
      'short\n',
    ],
    [
      'bad e-mail',
      [
        'user:create',
        '--org',
        '00000000-0000-4000-8000-000000000000',
        '--email',
        'not-an-email',
        '--password-stdin',
      ],
      /^E-mail must be a valid address$/,
      1,
      'long enough pw',
    ],
    [
      'both password sources',
      [
        'user:create',
        '--org',
        '00000000-0000-4000-8000-000000000000',
        '--email',
        'x@y.io',
        '--password',
        'long enough pw',
        '--password-stdin',
      ],
      /^Give --password-stdin or --password, not both\. Usage: user:create /,
      2,
      'long enough pw\n',
    ],
    [
      'no password source',
      ['user:create', '--org', '00000000-0000-4000-8000-000000000000', '--email', 'x@y.io'],
      /^Missing --password-stdin \(or --password\)\. Usage: user:create /,
      2,
    ],
    [
      'empty standard input',
      [
        'user:create',
        '--org',
        '00000000-0000-4000-8000-000000000000',
        '--email',
        'x@y.io',
        '--password-stdin',
      ],
      /^No password on standard input \(--password-stdin\)\.$/,
      2,
      '\n',
    ],
    [
      'no standard input to read',
      [
        'user:create',
        '--org',
        '00000000-0000-4000-8000-000000000000',
        '--email',
        'x@y.io',
        '--password-stdin',
      ],
      /^Standard input is not available\.$/,
      2,
    ],
    [
      '--password-stdin takes no value',
      [
        'user:create',
        '--org',
        '00000000-0000-4000-8000-000000000000',
        '--email',
        'x@y.io',
        '--password-stdin=secret value',
      ],
      /password-stdin/,
      2,
    ],
    ['unknown command', ['org:delete'], /^Unknown command "org:delete"/, 2],
  ]

  it.each(failures)(
    '%s: one clear line, non-zero exit, nothing changed',
    async (_label, argv, message, code, stdin) => {
      const before = await tableCounts()
      const result = await cliWithStdin(stdin, ...argv, '--json')
      expect(result.code).toBe(code)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(message)
      expect(result.stderr.split('\n')).toHaveLength(1)
      expect(await tableCounts()).toEqual(before)
    },
  )

  it('refuses a duplicate e-mail and changes nothing', async () => {
    const org = await json('org:create', '--name', 'Dupes')
    await jsonWithStdin(
      'long enough pw\n',
      'user:create',
      '--email',
      'dup@example.com',
      '--password-stdin',
      '--org',
      String(org.id),
    )
    const before = await tableCounts()
    const result = await cliWithStdin(
      'another long pw\n',
      'user:create',
      '--email',
      'DUP@example.com',
      '--password-stdin',
      '--org',
      String(org.id),
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toBe('A user with e-mail dup@example.com already exists')
    expect(await tableCounts()).toEqual(before)
  })
})

/** A clean environment: vitest's own (BASE_URL='/', MODE, ...) must not leak into the CLI. */
const cleanEnvironment = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
})

/**
 * Starts the admin CLI as an operator does: the command of package.json's `admin` script, run
 * as npm runs it (node_modules/.bin first on PATH, from the project root), and a `tsx` command
 * as tsx starts it (node with tsx's loader, less tsx's own parent process). Straight by default:
 * npm costs a second of CPU per start and proves nothing the script does not; with
 * `throughNpm`, through `npm run --silent admin`, which one test does so the entry stays proven.
 */
function startAdmin(env: Record<string, string>, argv: string[], { throughNpm = false } = {}) {
  const options = { env: { ...cleanEnvironment(), ...env }, cwd: process.cwd() }
  if (throughNpm) return exec('npm', ['run', '--silent', 'admin', '--', ...argv], options)
  const manifest = JSON.parse(readFileSync(path.join(process.cwd(), 'package.json'), 'utf8')) as {
    scripts: { admin: string }
  }
  const [command, ...args] = manifest.scripts.admin.split(/\s+/)
  if (command === 'tsx') return exec(process.execPath, ['--import', 'tsx', ...args, ...argv], options)
  const bin = path.join(process.cwd(), 'node_modules', '.bin')
  return exec(command!, [...args, ...argv], {
    ...options,
    env: { ...options.env, PATH: `${bin}${path.delimiter}${options.env.PATH}` },
  })
}

/** A finished CLI process: its exit code and both outputs, whether it succeeded or not. */
function settled(started: Promise<{ stdout: string; stderr: string }>) {
  return started.then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  )
}

describe('admin CLI as a process', () => {
  const run = (env: Record<string, string>, ...argv: string[]) => settled(startAdmin(env, argv))
  const runThroughNpm = (env: Record<string, string>, ...argv: string[]) =>
    settled(startAdmin(env, argv, { throughNpm: true }))

  const target = (): Record<string, string> =>
    database.url
      ? { DATABASE_URL: database.url }
      : { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'cli-')), DATABASE_URL: '' }

  // One data directory for both: on PGlite each new directory costs the process a migration.
  it(
    'prints one JSON object on stdout and nothing else, and reads --password-stdin from its standard input',
    async () => {
      const env = target()
      // Through npm once: `--silent` is what keeps npm's own lines off stdout.
      const created = await runThroughNpm(env, 'org:create', '--name', 'Acme', '--json')
      expect(created.code).toBe(0)
      const org = JSON.parse(created.stdout)
      expect(created.stdout.trim().split('\n')).toHaveLength(1)
      // A fresh data directory's first organization starts on the highest plan (issue 34); on
      // Postgres the file's database already holds the organizations of the tests above.
      expect(org).toMatchObject({ name: 'Acme', plan: database.url ? 'free' : 'paid' })
      const key = await run(env, 'key:create', '--org', org.id, '--type', 'ingest', '--json')
      expect(key.code).toBe(0)
      expect(JSON.parse(key.stdout).key).toMatch(/^svc_pk_[A-Za-z0-9_-]{43}$/)

      const pending = startAdmin(env, [
        'user:create',
        '--email',
        'piped@example.com',
        '--password-stdin',
        '--org',
        String(org.id),
      ])
      pending.child.stdin?.end('piped password\n')
      const user = await pending
      expect(user.stderr).toBe('')
      expect(user.stdout).toMatch(/^Created member piped@example\.com \(id [0-9a-f-]{36}\) in organization /)
      expect(user.stdout).toContain(String(org.id))
    },
    CLI_TEST_TIMEOUT_MS,
  )

  it(
    'exits non-zero with one line on stderr for an invalid environment variable',
    async () => {
      const result = await run({ ...target(), PORT: 'eighty' }, 'org:create', '--name', 'X', '--json')
      expect(result.code).not.toBe(0)
      expect(result.stdout).toBe('')
      expect(result.stderr.trim()).toBe('Invalid environment variable PORT: must be a number')
    },
    CLI_TEST_TIMEOUT_MS,
  )

  // The embedded database only: Postgres is shared by design, so this runs on PGlite in both suites.
  it(
    'says clearly when a running server holds the embedded database',
    async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'cli-held-'))
      await seedPgliteDataDir(path.join(dataDir, 'pglite'))
      const held = await openMigratedDatabase(
        { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
        { holder: 'the service (test)' },
      )
      const env = { DATA_DIR: dataDir, DATABASE_URL: '' }
      let channel: Server | undefined
      try {
        const result = await run(env, 'org:create', '--name', 'X', '--json')
        expect(result.code).toBe(1)
        expect(result.stdout).toBe('')
        expect(result.stderr.trim()).toMatch(
          /is held by the service \(test\) \(pid \d+\)\. Stop it first, or set DATABASE_URL/,
        )

        // A server holding it listens on the admin channel (inngest/startup.ts): the CLI hands its
        // commands over, output and exit codes included, and only this user can open it.
        channel = await serveAdminChannel(dataDir, held, cliWiring)
        const socket = path.join(dataDir, 'admin', 'cli.sock')
        expect(statSync(path.dirname(socket)).mode & 0o777).toBe(0o700)
        expect(statSync(socket).mode & 0o777).toBe(0o600)
        const created = await run(env, 'org:create', '--name', 'Handed over', '--json')
        expect(created.stderr).toBe('')
        expect(created.code).toBe(0)
        const org = JSON.parse(created.stdout) as { id: string }
        const plan = await run(env, 'org:plan', '--org', org.id, '--plan', 'paid')
        expect(plan).toEqual({
          code: 0,
          stdout: `Organization ${org.id} is now on the paid plan\n`,
          stderr: '',
        })
        const listed = await run(env, 'org:list', '--json')
        expect(JSON.parse(listed.stdout).organizations).toEqual([
          expect.objectContaining({ id: org.id, name: 'Handed over', plan: 'paid', members: 0 }),
        ])
        const wrong = await run(env, 'org:plan', '--org', org.id, '--plan', 'gold')
        expect(wrong).toMatchObject({ code: 1, stdout: '', stderr: 'Plan must be one of: free, paid\n' })
      } finally {
        await new Promise((resolve) => (channel ? channel.close(resolve) : resolve(undefined)))
        await held.close()
      }
    },
    CLI_TEST_TIMEOUT_MS,
  )
})
