import type postgres from 'postgres'
import type { Db } from '@/db/client'
import { createKey } from '@/lib/credentials/create-key'
import { createOrganization } from '@/lib/orgs/create-organization'

/**
 * The data of the Data API benchmark: one organization holding `mainIssues` issues (the one
 * every request reads), nine more sharing `otherIssues` (so the index holds other
 * organizations' rows around and between the measured ones), and `keys` Data API keys.
 * Issues are generated inside Postgres by one INSERT ... SELECT over generate_series: 200,000
 * rows take seconds instead of the minutes of row-by-row inserts from Node.
 */

export interface Seeded {
  organizationId: string
  otherOrganizationIds: string[]
  tokens: string[]
  rows: number
  seconds: number
  tableBytes: number
  equalCreatedAtRows: number
  statusCounts: Record<string, number>
}

const SUBJECTS = [
  'Checkout button does not respond',
  'Rage clicks on the disabled submit button',
  'Dead click on the pricing toggle',
  'TypeError: Cannot read properties of undefined (reading "id")',
  'Payment form loses entered card details',
  'Infinite spinner after saving settings',
  'Login redirect loops back to the sign-in page',
  'Search results flicker and reset scroll position',
  'File upload fails silently above 10 MB',
  'Date picker closes before a date can be chosen',
  'Modal cannot be dismissed on small screens',
  'Cart total shows stale price after coupon',
  'Network error 502 from /api/orders',
  'Users abandon onboarding at the invite step',
  'Layout shift pushes the buy button under the cookie banner',
  'Keyboard focus trapped in the navigation menu',
  'Unhandled promise rejection in analytics script',
]

const PAGES = [
  '/checkout/payment',
  '/pricing',
  '/settings/profile',
  '/dashboard',
  '/onboarding/invite',
  '/search',
  '/cart',
  '/login',
  '/projects/new',
  '/billing/invoices',
  '/docs/getting-started',
  '/account/security',
  '/reports/export',
]

const BROWSERS = ['Chrome 131 on macOS', 'Safari 18 on iOS', 'Firefox 133 on Windows', 'Edge 131 on Windows']

const CONSEQUENCES = [
  'leave the page within a few seconds',
  'retry the same action several times',
  'reload the page and lose their input',
  'contact support from the help widget',
  'give up without completing the flow',
]

const KINDS = ['js_error', 'rage_click', 'dead_click', 'network_error', 'ux_friction', 'performance']

export async function seedDataApi(
  db: Db,
  sql: postgres.Sql,
  options: { mainIssues: number; otherIssues: number; keys: number },
): Promise<Seeded> {
  const started = performance.now()
  const main = await createOrganization(db, { name: 'Bench main org', plan: 'paid' })
  const others: string[] = []
  for (let i = 1; i <= 9; i++) others.push((await createOrganization(db, { name: `Bench org ${i}` })).id)

  const tokens: string[] = []
  for (let i = 0; i < options.keys; i++)
    tokens.push((await createKey(db, { organizationId: main.id, type: 'api', name: `bench ${i}` })).key)
  // Each key's first use in a minute fires an UPDATE of last_used_at (touchCredential). One
  // real client would cause one such write a minute; hundreds of keys rotated only to stay
  // under the per-token rate limit would cause hundreds, a write load that is the
  // benchmark's own doing. A last_used_at in the future makes those UPDATEs match no row:
  // the statement still runs on the request path, but writes and commits nothing.
  await sql`update credentials set last_used_at = now() + interval '1 day' where organization_id = ${main.id}`

  const total = options.mainIssues + options.otherIssues
  // Deterministic pseudo-random spread: k * 2654435761 mod (90 days in ms) permutes the
  // residues, so rows land all over the 90 days. One row in five shares its key with three
  // others (k rounded down to a multiple of 20): groups of four equal createdAt values, which
  // the keyset's (created_at, id) tie-break must page through without loss or repetition.
  // Rows are inserted in createdAt order, as a live service would write them.
  await sql`
    insert into issues (
      organization_id, fingerprint, kind, source_type, title, description, status, priority,
      preview_url, steps_to_replicate, ai_verified, ticket_provider, ticket_url, ticket_identifier,
      session_count, first_seen_at, last_seen_at, evidence, created_at, updated_at
    )
    select
      org, 'bench:' || g, kind, source, title, description, status, priority,
      'https://app.example.com' || page, steps, verified,
      case when status = 'ticket_created' then 'linear' end,
      case when status = 'ticket_created' then 'https://linear.app/acme/issue/ENG-' || g end,
      case when status = 'ticket_created' then 'ENG-' || g end,
      sessions, created, created + (g % 72) * interval '1 hour',
      jsonb_build_object(
        'selector', 'main > form button[type=submit]:nth-of-type(' || (g % 4 + 1) || ')',
        'url', 'https://app.example.com' || page,
        'consoleErrors', jsonb_build_array(subject),
        'browser', browser
      ),
      created, created
    from (
      select
        g,
        case when g <= ${options.mainIssues} then ${main.id}::uuid
          else (${others}::uuid[])[1 + g % 9] end as org,
        (${KINDS}::text[])[1 + g % ${KINDS.length}] as kind,
        case when g % 10 = 0 then 'insight' else 'session_analysis' end as source,
        subject,
        subject || ' on ' || page as title,
        'Users ' || (${CONSEQUENCES}::text[])[1 + (g / 7) % ${CONSEQUENCES.length}]
          || ' after this happens on ' || page || '. Seen in ' || sessions
          || ' sessions, mostly on ' || browser
          || '. The replay shows the element receiving clicks while no request leaves the browser,'
          || ' and the console reports the error shortly after the page finished loading.' as description,
        case
          when (g * 37) % 100 < 45 then 'unresolved'
          when (g * 37) % 100 < 55 then 'ticket_created'
          when (g * 37) % 100 < 70 then 'transient'
          else 'resolved'
        end as status,
        case
          when (g * 53) % 100 < 10 then 'critical'
          when (g * 53) % 100 < 35 then 'high'
          when (g * 53) % 100 < 75 then 'medium'
          else 'low'
        end as priority,
        page,
        '1. Open ' || page || E'\n2. Fill in the form with valid data\n3. Click the primary button'
          || E'\n4. Observe that nothing happens' as steps,
        case g % 3 when 0 then true when 1 then false end as verified,
        sessions,
        browser,
        ${new Date().toISOString()}::timestamptz
          - ((case when g % 5 = 0 then g - g % 20 else g end)::bigint * 2654435761 % 7776000000)
          * interval '1 millisecond' as created
      from (
        select
          g,
          (${SUBJECTS}::text[])[1 + g % ${SUBJECTS.length}] as subject,
          (${PAGES}::text[])[1 + (g / ${SUBJECTS.length}) % ${PAGES.length}] as page,
          (${BROWSERS}::text[])[1 + (g / 3) % ${BROWSERS.length}] as browser,
          1 + (g * 7) % 200 as sessions
        from generate_series(1, ${total}) as g
      ) base
    ) generated
    order by created
  `
  // Statistics and hint bits as a database that has been running for a while would have
  // them; without this the first reads of each page would also write.
  await sql`vacuum (analyze) issues`
  await sql`analyze credentials`

  const [size] = await sql<{ bytes: string }[]>`select pg_total_relation_size('issues')::text as bytes`
  const [equal] = await sql<{ rows: string }[]>`
    select coalesce(sum(n), 0)::text as rows from (
      select count(*) as n from issues where organization_id = ${main.id}
      group by created_at having count(*) > 1
    ) dup
  `
  const statusRows = await sql<{ status: string; n: string }[]>`
    select status, count(*)::text as n from issues where organization_id = ${main.id} group by status
  `
  const [count] = await sql<{ n: string }[]>`select count(*)::text as n from issues`
  return {
    organizationId: main.id,
    otherOrganizationIds: others,
    tokens,
    rows: Number(count?.n ?? 0),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    tableBytes: Number(size?.bytes ?? 0),
    equalCreatedAtRows: Number(equal?.rows ?? 0),
    statusCounts: Object.fromEntries(statusRows.map((r) => [r.status, Number(r.n)])),
  }
}
