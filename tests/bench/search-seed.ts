import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { createOrganization } from '@/lib/orgs/create-organization'
import { userAgentFacts } from '@/lib/sessions/user-agent'

/**
 * The data of the search benchmark: `mainSessions` processed sessions in the organization
 * every query reads, `otherSessions` in a second one (the same generator, so its rows sit in
 * every index between the measured ones), each with a trail of 20 to 60 entries of every kind
 * in session_timeline_entries, shaped like lib/analysis/trail.ts writes them.
 *
 * Everything is generated inside the database by INSERT ... SELECT over generate_series, from
 * a hash of (session number, position), so a run is reproducible and 4 million entries take a
 * minute or two instead of an hour of row-by-row inserts. Secondary indexes are dropped for
 * the load and built again after it (what a restore does), and the foreign-key triggers are
 * skipped (session_replication_role = replica): every row is consistent by construction.
 */

export interface SearchSeed {
  organizationId: string
  otherOrganizationId: string
  sessions: number
  entries: number
  seconds: { load: number; indexes: number; analyze: number }
  bytes: { sessions: number; entries: number }
  indexes: string[]
}

// Pages of a shop; `/checkout/payment` is where Pay is clicked.
const PAGES = [
  '/',
  '/products',
  '/products/espresso-machine',
  '/products/grinder',
  '/cart',
  '/checkout',
  '/checkout/payment',
  '/pricing',
  '/account/settings',
  '/search',
  '/blog/how-to-brew',
  '/login',
]

// text, role, testid, tag
const BUTTONS: [string, string, string | null, string][] = [
  ['Add to cart', 'button', 'add-to-cart', 'button'],
  ['Pay', 'button', 'pay-button', 'button'],
  ['Checkout', 'button', 'checkout', 'button'],
  ['Sign in', 'button', null, 'button'],
  ['Save', 'button', 'save-settings', 'button'],
  ['Next', 'button', null, 'button'],
  ['Search', 'button', 'search-submit', 'button'],
  ['Apply coupon', 'button', 'apply-coupon', 'button'],
  ['Pricing', 'link', null, 'a'],
  ['Products', 'link', 'nav-products', 'a'],
  ['Open menu', 'button', 'menu-toggle', 'button'],
  ['Read more', 'link', null, 'a'],
]

const FIELDS: [string, string][] = [
  ['Email', 'email'],
  ['Card number', 'card-number'],
  ['Search', 'q'],
  ['Coupon code', 'coupon'],
  ['Full name', 'name'],
]

const API = ['/api/cart', '/api/products', '/api/orders', '/api/session', '/api/search', '/api/payments']

const CONSOLE = [
  'Service worker registered',
  '[analytics] page view sent',
  'Warning: componentWillReceiveProps has been renamed, and is not recommended for use',
  'Image with src "/hero.jpg" was detected as the Largest Contentful Paint',
  'The resource /fonts/inter.woff2 was preloaded using link preload but not used',
  'Cart updated',
]

const ERRORS = [
  "TypeError: Cannot read properties of undefined (reading 'id')",
  'ReferenceError: gtag is not defined',
  'Error: Request failed with status code 500',
  'Unhandled promise rejection: AbortError: The user aborted a request.',
  'TypeError: Failed to fetch',
]

const EVENTS = ['purchase', 'signup', 'add_to_cart', 'search', 'plan_selected']

const USER_AGENTS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
]

const LANGUAGES = ['en-US', 'de-DE', 'fr-FR', 'en-GB', 'es-ES']
const PLANS = ['free', 'pro', 'enterprise']

/** `array[...]::text[]` of parameters, indexed 1-based by `pick`. */
const textArray = (values: readonly (string | null)[]) =>
  sql`(array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[])`
/** values[1 + (n % values.length)] */
const pick = (values: readonly (string | null)[], n: SQL) =>
  sql`${textArray(values)}[1 + (${n}) % ${values.length}]`

/**
 * Sessions `from`..`to` (numbers, inclusive) of one organization and their trails, in one
 * statement. Session g starts 26 s before session g-1 (100,000 sessions span a month); its
 * trail has 20 + hash % 41 entries, one every ~4 s, each kind drawn from the entry's hash:
 * click 30 %, request 25 %, console 12 %, navigation 10 % (and position 0), input 10 %,
 * custom 8 %, error 3 % (from one session in four), rage click 1 %, dead click 1 %.
 */
export function seedChunk(organizationId: string, from: number, to: number, nowMs: number): SQL {
  const target = (b: SQL) => sql`jsonb_build_object(
      'tag', ${pick(
        BUTTONS.map((x) => x[3]),
        b,
      )},
      'selector', case when ${pick(
        BUTTONS.map((x) => x[2]),
        b,
      )} is null then 'main ' || ${pick(
        BUTTONS.map((x) => x[3]),
        b,
      )} || ':nth-of-type(' || (1 + ${b} % 3) || ')'
        else '[data-testid="' || ${pick(
          BUTTONS.map((x) => x[2]),
          b,
        )} || '"]' end,
      'role', ${pick(
        BUTTONS.map((x) => x[1]),
        b,
      )},
      'name', ${pick(
        BUTTONS.map((x) => x[0]),
        b,
      )},
      'text', ${pick(
        BUTTONS.map((x) => x[0]),
        b,
      )},
      'testId', ${pick(
        BUTTONS.map((x) => x[2]),
        b,
      )},
      'id', null,
      'type', case when ${pick(
        BUTTONS.map((x) => x[3]),
        b,
      )} = 'button' then 'button' end,
      'href', case when ${pick(
        BUTTONS.map((x) => x[3]),
        b,
      )} = 'a' then ${pick(PAGES, b)} end
    )`
  return sql`
    with sessions as (
      insert into replay_sessions (
        organization_id, external_id, status, started_at, last_activity_at, last_received_at,
        entry_url, anonymous_id, user_id, user_properties, user_email, user_name, user_agent,
        language, release, automation, batch_count, event_count, byte_size, processed_at,
        trail_truncated, created_at, updated_at
      )
      select
        ${organizationId}::uuid, 'bench-' || g, 'processed', started, started + n_entries * interval '4 seconds',
        started + n_entries * interval '4 seconds',
        'https://shop.example.com' || ${pick(PAGES, sql`h`)}, 'anon-' || g,
        case when h % 10 < 7 then 'user-' || (h / 10) % 20000 end,
        case when h % 10 < 7 then jsonb_build_object('plan', ${pick(PLANS, sql`(h / 10) % 20000`)}, 'company', 'Company ' || (h / 10) % 500) end,
        case when h % 10 < 7 then 'user' || (h / 10) % 20000 || '@example.com' end,
        case when h % 10 < 7 then 'User ' || (h / 10) % 20000 end,
        ${pick(USER_AGENTS, sql`(h / 7)`)},
        ${pick(LANGUAGES, sql`(h / 13)`)},
        'web@1.' || (g / 10000) || '.' || (g / 1000) % 10,
        case when g % 200 = 0 then 'bot' end,
        1 + n_entries / 10, n_entries * 25, n_entries * 4000, started + n_entries * interval '4 seconds' + interval '1 minute',
        false, started + interval '5 seconds', started + interval '5 seconds'
      from (
        select g, h, 20 + (h % 41)::int as n_entries,
          to_timestamp(${nowMs / 1000}::double precision) - g * interval '26 seconds' as started
        from (select g, abs(hashint8(g::bigint)::bigint) as h from generate_series(${from}::int, ${to}::int) as g) numbered
      ) s
      returning id, organization_id, external_id, started_at
    ),
    positions as (
      select s.id, s.organization_id, n.g, p,
        (extract(epoch from s.started_at) * 1000)::bigint + p * 4000 + (abs(hashint8(n.g::bigint * 7919 + p)::bigint) % 3000) as at,
        abs(hashint8(n.g::bigint * 4096 + p)::bigint) as r,
        ${pick(PAGES, sql`(n.h + p / 8)`)} as page
      from sessions s
      cross join lateral (
        select substring(s.external_id from 7)::int as g, abs(hashint8(substring(s.external_id from 7)::bigint)::bigint) as h
      ) n
      cross join lateral generate_series(0, 19 + (n.h % 41)::int) as p
    ),
    kinds as (
      select *,
        case
          when p = 0 or p % 8 = 0 then 'navigation'
          when r % 1000 < 300 then 'click'
          when r % 1000 < 550 then 'request'
          when r % 1000 < 670 then 'console'
          when r % 1000 < 720 then 'navigation'
          when r % 1000 < 820 then 'input'
          when r % 1000 < 880 then 'custom'
          when r % 1000 < 910 then case when g % 4 = 0 then 'error' else 'custom' end
          when r % 1000 < 990 then 'click'
          when r % 1000 < 995 then 'rage_click'
          else 'dead_click'
        end as kind,
        (r / 1000) as b
      from positions
    )
    insert into session_timeline_entries (session_id, organization_id, position, at, kind, entry)
    select id, organization_id, p, at, kind,
      jsonb_build_object('kind', kind, 'at', at, 'pageUrl', 'https://shop.example.com' || page) ||
      case kind
        when 'navigation' then jsonb_build_object(
          'url', 'https://shop.example.com' || page || case when b % 5 = 0 then '?ref=newsletter' else '' end,
          'change', case when p = 0 then 'load' else 'navigation' end)
        when 'click' then jsonb_build_object('target', ${target(sql`b`)}, 'count', 1)
        when 'rage_click' then jsonb_build_object('target', ${target(sql`b`)}, 'count', 3 + b % 5)
        when 'dead_click' then jsonb_build_object('target', ${target(sql`b`)})
        when 'input' then jsonb_build_object(
          'target', jsonb_build_object('tag', 'input', 'selector', 'input[name="' || ${pick(
            FIELDS.map((f) => f[1]),
            sql`b`,
          )} || '"]', 'role', 'textbox', 'name', ${pick(
            FIELDS.map((f) => f[0]),
            sql`b`,
          )}, 'text', '', 'testId', null, 'id', null, 'type', 'text', 'href', null),
          'control', 'text', 'value', null, 'masked', true, 'length', 3 + b % 20, 'checked', null)
        when 'console' then jsonb_build_object(
          'level', case when b % 10 < 6 then 'log' when b % 10 < 9 then 'warn' else 'error' end,
          'message', ${pick(CONSOLE, sql`b`)})
        when 'error' then jsonb_build_object(
          -- One session in a thousand fails to load a chunk: the rare match.
          'message', case when g % 1000 = 8 then 'ChunkLoadError: Loading chunk ' || (b % 900) || ' failed.'
            else ${pick(ERRORS, sql`b`)} end,
          'stack', 'Error\n    at handler (https://shop.example.com/_next/static/chunks/app-' || (b % 50) || '.js:1:' || (b % 9000) || ')',
          'source', case when b % 4 = 0 then 'unhandled_rejection' else 'uncaught' end)
        when 'request' then jsonb_build_object(
          'method', case when b % 4 = 0 then 'POST' else 'GET' end,
          'url', 'https://shop.example.com' || ${pick(API, sql`b`)} || case when b % 3 = 0 then '?page=' || (b % 7) else '' end,
          -- 200 mostly; 404 2 %, 500 1 %, 502 0.5 %, no answer 0.3 %.
          'status', case when b % 1000 < 3 then null when b % 1000 < 13 then 500 when b % 1000 < 18 then 502
            when b % 1000 < 38 then 404 when b % 1000 < 100 then 201 else 200 end,
          'durationMs', case when b % 1000 < 3 then null else 20 + (b % 97) * (1 + b % 13) end,
          'failed', b % 1000 < 18)
        else jsonb_build_object(
          'tag', ${pick(EVENTS, sql`b`)},
          'payload', case when b % 7 = 0 then null else jsonb_build_object(
            'amount', b % 400, 'currency', case when b % 2 = 0 then 'EUR' else 'USD' end,
            'plan', ${pick(PLANS, sql`b / 7`)})::text end)
      end
    from kinds
  `
}

/** Session figures as the analysis pass would have written them, from the trail. */
const FIGURES = sql`
  update replay_sessions rs set
    duration_ms = f.duration_ms, page_count = f.pages, error_count = f.errors, rage_click_count = f.rage
  from (
    select session_id, (max(at) - min(at))::int as duration_ms,
      count(*) filter (where kind = 'navigation')::int as pages,
      count(*) filter (where kind = 'error')::int as errors,
      count(*) filter (where kind = 'rage_click')::int as rage
    from session_timeline_entries group by session_id
  ) f
  where rs.id = f.session_id
`

/**
 * Browser, OS and device as the processing pass writes them (userAgentFacts), for sessions
 * that have none: all of a fresh seed, and those of a database seeded before 0012_search.
 */
export function agentFacts(): SQL {
  const facts = USER_AGENTS.map((ua) => ({ ua, ...userAgentFacts(ua) }))
  const pickBy = (key: 'browser' | 'os' | 'device') =>
    sql`case user_agent ${sql.join(
      facts.map((f) => sql`when ${f.ua} then ${f[key]}`),
      sql` `,
    )} end`
  return sql`
    update replay_sessions set browser = ${pickBy('browser')}, os = ${pickBy('os')}, device = ${pickBy('device')}
    where browser is null and user_agent is not null
  `
}

const TABLES = ['replay_sessions', 'session_timeline_entries']

/** The rows of db.execute, whichever driver answered (postgres.js: an array; PGlite: `.rows`). */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  if (result && typeof result === 'object' && 'rows' in result && Array.isArray(result.rows))
    return result.rows as T[]
  throw new Error('unexpected result shape from the database driver')
}

interface Dropped {
  name: string
  def: string
  table: string
  /** Set for the trail's primary key: `PRIMARY KEY (session_id, "position")`. */
  constraint: string | null
  constraintDef: string | null
}

export async function seedSearch(
  db: Db,
  options: { mainSessions: number; otherSessions: number; chunk?: number; progress?: (line: string) => void },
): Promise<SearchSeed> {
  const progress = options.progress ?? (() => {})
  const main = await createOrganization(db, { name: 'Search bench org', plan: 'paid' })
  const other = await createOrganization(db, { name: 'Search bench other org' })
  const nowMs = Date.now()
  const chunk = options.chunk ?? 10_000

  // Secondary indexes (and the trail's primary key) are built once after the load instead of
  // being updated 4 million times.
  const dropped = rowsOf<Dropped>(
    await db.execute(sql`
      select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def,
        i.indrelid::regclass::text as table, c.conname as constraint,
        case when c.oid is not null then pg_get_constraintdef(c.oid) end as "constraintDef"
      from pg_index i left join pg_constraint c on c.conindid = i.indexrelid
      where i.indrelid in (${sql.join(
        TABLES.map((t) => sql`${t}::regclass`),
        sql`, `,
      )})
        and (c.conname is null or (c.contype = 'p' and i.indrelid = 'session_timeline_entries'::regclass))
      order by 1
    `),
  )

  const started = performance.now()
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`)
    // The generator's estimated cost is in the millions: JIT would spend seconds compiling each chunk.
    await tx.execute(sql`set local jit = off`)
    for (const d of dropped)
      await tx.execute(
        sql.raw(
          d.constraint ? `alter table ${d.table} drop constraint "${d.constraint}"` : `drop index ${d.name}`,
        ),
      )
    const runs: [string, number, number][] = [
      [main.id, 1, options.mainSessions],
      [other.id, options.mainSessions + 1, options.mainSessions + options.otherSessions],
    ]
    for (const [org, first, last] of runs)
      for (let from = first; from <= last; from += chunk) {
        const to = Math.min(last, from + chunk - 1)
        await tx.execute(seedChunk(org, from, to, nowMs))
        progress(`seeded sessions ${from.toLocaleString('en-US')}-${to.toLocaleString('en-US')}`)
      }
    await tx.execute(FIGURES)
    await tx.execute(agentFacts())
  })
  const loaded = performance.now()
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local maintenance_work_mem = '256MB'`)
    for (const d of dropped) {
      progress(`building ${d.name}`)
      await tx.execute(
        sql.raw(
          d.constraint ? `alter table ${d.table} add constraint "${d.constraint}" ${d.constraintDef}` : d.def,
        ),
      )
    }
  })
  const built = performance.now()
  // Statistics and hint bits as a database that has been running for a while would have them.
  for (const t of TABLES) await db.execute(sql.raw(`vacuum (analyze) ${t}`))
  const analyzed = performance.now()

  const [counts] = rowsOf<{ sessions: number; entries: number; sb: string; eb: string }>(
    await db.execute(sql`
      select (select count(*) from replay_sessions)::int as sessions,
        (select count(*) from session_timeline_entries)::int as entries,
        pg_total_relation_size('replay_sessions')::text as sb,
        pg_total_relation_size('session_timeline_entries')::text as eb
    `),
  )
  const s = (a: number, b: number) => Math.round((b - a) / 100) / 10
  return {
    organizationId: main.id,
    otherOrganizationId: other.id,
    sessions: counts?.sessions ?? 0,
    entries: counts?.entries ?? 0,
    seconds: { load: s(started, loaded), indexes: s(loaded, built), analyze: s(built, analyzed) },
    bytes: { sessions: Number(counts?.sb ?? 0), entries: Number(counts?.eb ?? 0) },
    indexes: dropped.map((d) => (d.constraint ? `${d.table} ${d.constraintDef}` : d.def)),
  }
}
