import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import postgres from 'postgres'

/**
 * The reference of `npm run bench:oauth`: panva's oidc-provider (the certified OpenID
 * Provider for Node) answering the same refresh_token grant, run as a process of its own so
 * that it, like `next start`, does not share an event loop with the load generator.
 *
 *   node --import tsx tests/bench/oauth-oidc-provider.ts --count N --out FILE [--database-url URL]
 *
 * It configures one public client (token_endpoint_auth_method none) with rotating refresh
 * tokens, mints N refresh tokens through its own models (a Grant and a RefreshToken each, as
 * its authorization_code grant would after a consent, without the browser round trip), writes
 * them to FILE as a JSON array, serves the provider on 127.0.0.1 and prints {"port":...}.
 *
 * Storage is one of two adapters: a Map (the default; the library's own MemoryAdapter is an
 * LRU of 1,000 entries, which would evict most of the minted tokens before they are used), or
 * with --database-url a Postgres table in the style of the library's example adapters, so the
 * comparison can also be made with both servers going to the same database.
 */

interface Payload {
  grantId?: string
  userCode?: string
  uid?: string
  consumed?: number | boolean
  [key: string]: unknown
}

interface Adapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>
  find(id: string): Promise<Payload | undefined>
  findByUserCode(userCode: string): Promise<Payload | undefined>
  findByUid(uid: string): Promise<Payload | undefined>
  consume(id: string): Promise<void>
  destroy(id: string): Promise<void>
  revokeByGrantId(grantId: string): Promise<void>
}

type AdapterFactory = (model: string) => Adapter

interface GrantModel {
  addOIDCScope(scope: string): void
  save(): Promise<string>
}

interface TokenModel {
  save(): Promise<string>
}

/** The slice of oidc-provider's API this file uses (the package ships no type declarations). */
interface Provider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void
  on(event: string, listener: (...args: unknown[]) => void): void
  Grant: new (init: { accountId: string; clientId: string }) => GrantModel
  RefreshToken: new (init: {
    accountId: string
    client: unknown
    grantId: string
    scope: string
    gty: string
  }) => TokenModel
  Client: { find(id: string): Promise<unknown> }
}

type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => Provider

const REFERENCE_CLIENT_ID = 'bench-public-client'
const REFERENCE_TOKEN_PATH = '/token'
const ACCOUNT_ID = 'bench-user'
const SCOPE = 'offline_access'

/** Every model in one Map, with the grant index revokeByGrantId needs (reuse detection). */
function mapAdapter(): AdapterFactory {
  const store = new Map<string, { payload: Payload; expiresAt: number }>()
  const grants = new Map<string, Set<string>>()
  const byUid = new Map<string, string>()
  const byUserCode = new Map<string, string>()
  return (model) => {
    const key = (id: string) => `${model}:${id}`
    const find = async (id: string) => {
      const entry = store.get(key(id))
      if (!entry) return undefined
      if (entry.expiresAt <= Date.now()) {
        store.delete(key(id))
        return undefined
      }
      return entry.payload
    }
    return {
      async upsert(id, payload, expiresIn) {
        const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity
        store.set(key(id), { payload, expiresAt })
        if (payload.grantId) {
          const members = grants.get(payload.grantId) ?? new Set<string>()
          members.add(key(id))
          grants.set(payload.grantId, members)
        }
        if (model === 'Session' && payload.uid) byUid.set(payload.uid, id)
        if (payload.userCode) byUserCode.set(payload.userCode, id)
      },
      find,
      async findByUid(uid) {
        const id = byUid.get(uid)
        return id === undefined ? undefined : find(id)
      },
      async findByUserCode(userCode) {
        const id = byUserCode.get(userCode)
        return id === undefined ? undefined : find(id)
      },
      async consume(id) {
        const entry = store.get(key(id))
        if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000)
      },
      async destroy(id) {
        store.delete(key(id))
      },
      async revokeByGrantId(grantId) {
        for (const member of grants.get(grantId) ?? []) store.delete(member)
        grants.delete(grantId)
      },
    }
  }
}

/**
 * One table for every model, keyed by (type, id), with the grant, uid and user-code columns
 * the lookups need and consumption as its own column: what the library's example adapters
 * (MongoDB, Sequelize) do. postgres.js with the same pool size as the service's server.
 */
async function postgresAdapter(
  url: string,
): Promise<{ factory: AdapterFactory; serve(): Promise<void>; close(): Promise<void> }> {
  const connect = () => postgres(url, { max: 10, onnotice: () => {}, connect_timeout: 10 })
  // Minting goes through a pool of its own, closed before serving: a backend publishes its
  // statistics when it exits, so the benchmark's counters then hold the refreshes alone.
  let sql = connect()
  await sql`create table if not exists oidc_payloads (
    type text not null,
    id text not null,
    payload jsonb not null,
    grant_id text,
    user_code text,
    uid text,
    expires_at timestamptz,
    consumed_at timestamptz,
    primary key (type, id)
  )`
  await sql`create index if not exists oidc_payloads_grant_idx on oidc_payloads (grant_id)`
  await sql`create index if not exists oidc_payloads_uid_idx on oidc_payloads (uid)`
  await sql`create index if not exists oidc_payloads_user_code_idx on oidc_payloads (user_code)`
  const row = (found: { payload: Payload; consumed_at: Date | null }[]): Payload | undefined => {
    const first = found[0]
    if (!first) return undefined
    return first.consumed_at ? { ...first.payload, consumed: true } : first.payload
  }
  const factory: AdapterFactory = (model) => ({
    async upsert(id, payload, expiresIn) {
      const expiresAt = typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000) : null
      await sql`insert into oidc_payloads (type, id, payload, grant_id, user_code, uid, expires_at)
        values (${model}, ${id}, ${sql.json(payload as postgres.JSONValue)}, ${payload.grantId ?? null},
          ${payload.userCode ?? null}, ${payload.uid ?? null}, ${expiresAt})
        on conflict (type, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
          user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`
    },
    async find(id) {
      return row(
        await sql`select payload, consumed_at from oidc_payloads where type = ${model} and id = ${id}
          and (expires_at is null or expires_at > now())`,
      )
    },
    async findByUid(uid) {
      return row(
        await sql`select payload, consumed_at from oidc_payloads where type = ${model} and uid = ${uid}
          and (expires_at is null or expires_at > now())`,
      )
    },
    async findByUserCode(userCode) {
      return row(
        await sql`select payload, consumed_at from oidc_payloads where type = ${model}
          and user_code = ${userCode} and (expires_at is null or expires_at > now())`,
      )
    },
    async consume(id) {
      await sql`update oidc_payloads set consumed_at = now() where type = ${model} and id = ${id}`
    },
    async destroy(id) {
      await sql`delete from oidc_payloads where type = ${model} and id = ${id}`
    },
    async revokeByGrantId(grantId) {
      await sql`delete from oidc_payloads where grant_id = ${grantId}`
    },
  })
  return {
    factory,
    serve: async () => {
      await sql.end({ timeout: 5 })
      sql = connect()
    },
    close: () => sql.end({ timeout: 5 }),
  }
}

async function loadProvider(): Promise<ProviderClass> {
  // A specifier in a variable: the package has no type declarations, so its default export
  // is given the shape above here instead of in an ambient module declaration.
  const specifier: string = 'oidc-provider'
  const module = (await import(specifier)) as { default: ProviderClass }
  return module.default
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' },
      out: { type: 'string' },
      'database-url': { type: 'string' },
    },
  })
  const count = Number(values.count)
  if (!Number.isInteger(count) || count < 1 || !values.out)
    throw new Error('usage: oauth-oidc-provider.ts --count N --out FILE [--database-url URL]')
  const storage = values['database-url'] ? await postgresAdapter(values['database-url']) : undefined

  // The issuer names the port, so the socket is bound before the provider is created.
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const Provider = await loadProvider()
  // An RS256 key of its own: without one the library signs with published development keys
  // (and says so on every start). No refresh here signs anything: tokens are opaque and no
  // id_token is issued without the openid scope, matching the service's responses.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    adapter: storage?.factory ?? mapAdapter(),
    clients: [
      {
        client_id: REFERENCE_CLIENT_ID,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
      },
    ],
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // As the service: every refresh rotates, and a rotated token presented again revokes the grant.
    rotateRefreshToken: true,
    // The library's default (offline_access and the grant type) spelled out: the flow that
    // would have produced the minted tokens issues refresh tokens to this public client.
    issueRefreshToken: async (
      _ctx: unknown,
      client: { grantTypeAllowed(type: string): boolean },
      code: { scopes: Set<string> },
    ) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    // The service's lifetimes: one hour for access tokens, 30 days for refresh tokens.
    ttl: { AccessToken: 3600, RefreshToken: 30 * 86_400, Grant: 30 * 86_400 },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'bench', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: { devInteractions: { enabled: false } },
  })
  provider.on('server_error', (_ctx, error) => process.stderr.write(`server_error: ${String(error)}\n`))

  const client = await provider.Client.find(REFERENCE_CLIENT_ID)
  if (!client) throw new Error('the reference client was not loaded')
  const tokens: string[] = new Array(count)
  const mint = async (i: number) => {
    const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId: REFERENCE_CLIENT_ID })
    grant.addOIDCScope(SCOPE)
    const grantId = await grant.save()
    const refreshToken = new provider.RefreshToken({
      accountId: ACCOUNT_ID,
      client,
      grantId,
      scope: SCOPE,
      gty: 'authorization_code',
    })
    tokens[i] = await refreshToken.save()
  }
  // A few at a time: the Postgres adapter's pool holds ten connections.
  for (let i = 0; i < count; i += 10)
    await Promise.all(Array.from({ length: Math.min(10, count - i) }, (_, j) => mint(i + j)))
  await writeFile(values.out, JSON.stringify(tokens))
  await storage?.serve()

  server.on('request', provider.callback())
  const shutdown = () => {
    server.close()
    server.closeAllConnections()
    void (storage?.close() ?? Promise.resolve()).finally(() => process.exit(0))
  }
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)
  process.stdout.write(
    `${JSON.stringify({ port, clientId: REFERENCE_CLIENT_ID, path: REFERENCE_TOKEN_PATH })}\n`,
  )
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
