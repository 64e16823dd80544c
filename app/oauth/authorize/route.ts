import { getConfig } from '@/lib/config'
import { getDb } from '@/lib/db'
import { readForm, sessionUser } from '@/lib/http/oauth'
import { logger } from '@/lib/log'
import { decideConsent } from '@/lib/oauth/decide-consent'
import { type AuthorizeOutcome, startAuthorization } from '@/lib/oauth/start-authorization'
import { consentPage, continuePage, errorPage } from './view'

/**
 * docs/design/oauth-mcp.md decision 13: never framed, never cached, no Referer leaves these pages. They are
 * plain HTML with one inline style sheet and no script, so nothing else may load. No
 * form-action: Chrome applies it to the redirect after the consent form, which goes to the
 * client's redirect URI on any origin.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
}

const page = (html: string, status = 200) =>
  new Response(html, { status, headers: { ...PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8' } })

/** 302 after a GET, 303 after the POST; never 307, which would re-POST to the client. */
const redirect = (location: string, status: 302 | 303) =>
  new Response(null, { status, headers: { ...PAGE_HEADERS, Location: location } })

function answer(outcome: AuthorizeOutcome, status: 302 | 303): Response {
  switch (outcome.kind) {
    case 'error':
      logger.info({ check: outcome.check }, 'authorization request refused')
      return page(errorPage(), 400)
    case 'login':
      return redirect(`/login?callbackUrl=${encodeURIComponent(outcome.callbackPath)}`, status)
    case 'no_organization':
      return redirect('/login?error=NoOrganization', status)
    case 'redirect':
      return redirect(outcome.location, status)
    case 'consent':
      return page(consentPage(outcome.view))
  }
}

/**
 * A browser fetch rather than a navigation: Next's client router fetching the callbackUrl
 * after sign-in (`RSC: 1`), or any script's fetch (`Sec-Fetch-Dest: empty`). Clients without
 * Fetch Metadata (server-side HTTP clients, tests) are navigations as far as we can tell.
 */
function isBackgroundFetch(req: Request): boolean {
  const dest = req.headers.get('sec-fetch-dest')
  return req.headers.has('rsc') || (dest !== null && dest !== 'document')
}

export async function GET(req: Request): Promise<Response> {
  // A code must only ever travel in a real navigation: a background fetch gets a plain page,
  // and Next's router, seeing HTML instead of RSC, navigates to the same URL for real.
  if (isBackgroundFetch(req)) {
    const url = new URL(req.url)
    return page(continuePage(`${url.pathname}${url.search}`))
  }
  const db = await getDb()
  const params = new URL(req.url).searchParams
  return answer(await startAuthorization(db, params, await sessionUser(req, db), getConfig()), 302)
}

export async function POST(req: Request): Promise<Response> {
  const db = await getDb()
  let form: URLSearchParams
  try {
    form = await readForm(req)
  } catch {
    return answer({ kind: 'error', check: 'form_readable' }, 303)
  }
  return answer(await decideConsent(db, form, await sessionUser(req, db), getConfig()), 303)
}
