/**
 * A small customer site for browser tests: served from its own port, so the recorder runs
 * cross-origin to the service as on a real customer's site. Every page carries the recorder
 * snippet the dashboard shows (lib/sdk/snippet.ts), or an explicit `SessionReplay.init()` when
 * a test needs options. The pages offer what sessions are analysed for: an uncaught TypeError,
 * a failing API call (500), a checkout whose 500 the page also logs with console.error, an SPA
 * navigation, private inputs and a blocked element.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { recorderSnippet } from '@/lib/sdk/snippet'

export interface DemoSiteOptions {
  /** Where /sdk.js is served (the service's base URL). */
  serviceUrl: string
  /** The ingest API's address; defaults to `serviceUrl`. */
  ingestUrl?: string
  /** A public ingest key (`svc_pk_…`). */
  apiKey: string
  /**
   * Extra `init()` options (short timeouts in tests). When given, pages load the script without
   * data attributes and call `SessionReplay.init()` themselves, the way integrators do.
   */
  recorderOptions?: Record<string, unknown>
}

export interface DemoSite {
  url: string
  /** Text that is typed into private fields or sits in blocked elements: never to be recorded. */
  secrets: { email: string; password: string; phone: string; blockedText: string }
  stop(): Promise<void>
}

const SECRETS = {
  email: 'ada.secret@example.org',
  password: 'hunter2-correct-horse',
  phone: '+44 20 7946 0958',
  blockedText: 'Card ending 4242 belongs to Ada',
}

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')

// Page code lives in its own file so that stack frames point at an in-app script.
const APP_JS = `
function applyCoupon() {
  const coupon = window.__coupon;
  return coupon.code.trim();
}
document.getElementById('apply-coupon').addEventListener('click', () => applyCoupon());
document.getElementById('load-report').addEventListener('click', async () => {
  const status = document.getElementById('report-status');
  status.textContent = 'Loading…';
  const response = await fetch('/api/report?token=abc123&range=week', { method: 'POST' });
  status.textContent = response.ok ? 'Report loaded' : 'Report failed (' + response.status + ')';
});
document.getElementById('load-ok').addEventListener('click', async () => {
  const response = await fetch('/api/ok');
  document.getElementById('report-status').textContent = 'OK ' + response.status;
});
document.getElementById('open-pricing').addEventListener('click', () => {
  history.pushState({ page: 'pricing' }, '', '/pricing');
  document.querySelector('h1').textContent = 'Pricing';
  document.getElementById('view').textContent = 'Plans start at 9 EUR a month.';
});
document.getElementById('add-item').addEventListener('click', () => {
  const li = document.createElement('li');
  li.textContent = 'Item ' + (document.querySelectorAll('#items li').length + 1);
  document.getElementById('items').appendChild(li);
});
function syncCart() {
  // An invalid URL: fetch rejects, and nobody handles it.
  return fetch('http://[cart-sync');
}
document.getElementById('sync-cart').addEventListener('click', () => {
  syncCart();
});
document.getElementById('place-order').addEventListener('click', async () => {
  const status = document.getElementById('report-status');
  const response = await fetch('/api/checkout', { method: 'POST' });
  // The page reports the failure itself, as shops do: one failure, which must be one issue.
  if (!response.ok) console.error('Checkout failed', response.status);
  status.textContent = response.ok ? 'Order placed' : 'Order failed';
});
document.getElementById('log-error').addEventListener('click', () => {
  console.error('Cart total is negative', { total: -3 });
});
`

/**
 * The recorder must load in CORS mode: a classic cross-origin script has "muted errors", and
 * Chromium then reports no unhandled rejection (and only `Script error.`) for a failure that
 * passes through the recorder's fetch or history wrappers. /sdk.js allows any origin; the
 * snippet is expected to carry the attribute, this only adds it while it does not.
 */
function withCors(snippet: string): string {
  return snippet.includes('crossorigin')
    ? snippet
    : snippet.replace('<script ', '<script crossorigin="anonymous" ')
}

function page(options: DemoSiteOptions, title: string): string {
  const ingestUrl = options.ingestUrl ?? options.serviceUrl
  const recorder = options.recorderOptions
    ? `<script src="${escapeHtml(`${options.serviceUrl}/sdk.js`)}" crossorigin="anonymous"></script>
<script>SessionReplay.init(${JSON.stringify({ apiKey: options.apiKey, ingestUrl, ...options.recorderOptions }).replaceAll('<', '\\u003c')})</script>`
    : withCors(recorderSnippet({ baseUrl: options.serviceUrl, ingestUrl, apiKey: options.apiKey }))
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Demo shop</title>
${recorder}
<script>
// Boot-time activity, before DOMContentLoaded and so before rrweb records.
console.warn('[boot] demo shop starting');
fetch('/api/ok?boot=1');
</script>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:40rem} button{margin:.25rem}
label{display:block;margin:.5rem 0} .spacer{height:1500px}</style>
</head>
<body>
<nav><a href="/">Home</a> · <a href="/checkout">Checkout</a> · <a href="/pricing">Pricing</a></nav>
<h1>${escapeHtml(title)}</h1>
<p id="view">Welcome to the demo shop.</p>
<section aria-label="Actions">
<button id="apply-coupon" type="button">Apply coupon</button>
<button id="load-report" type="button">Load report</button>
<button id="load-ok" type="button">Refresh stock</button>
<button id="open-pricing" type="button">Open pricing</button>
<button id="add-item" type="button">Add item</button>
<button id="log-error" type="button">Check total</button>
<button id="sync-cart" type="button">Sync cart</button>
<button id="place-order" type="button">Place order</button>
<p id="report-status" role="status"></p>
<ul id="items"></ul>
</section>
<form id="account" onsubmit="return false">
<label>Name <input id="name" name="name" type="text" autocomplete="off"></label>
<label>Email <input id="email" name="email" type="email" autocomplete="off"></label>
<label>Phone <input id="phone" name="phone" type="tel" autocomplete="off"></label>
<label>Password <input id="password" name="password" type="password" autocomplete="off"></label>
</form>
<div id="card" data-svc-block><p>${escapeHtml(SECRETS.blockedText)}</p></div>
<div class="spacer"></div>
<script src="/app.js"></script>
</body>
</html>`
}

const TITLES: Record<string, string> = { '/': 'Demo shop', '/checkout': 'Checkout', '/pricing': 'Pricing' }

export async function startDemoSite(options: DemoSiteOptions): Promise<DemoSite> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://demo').pathname
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' })
      res.end(body)
    }
    if (path === '/app.js') return send(200, 'text/javascript; charset=utf-8', APP_JS)
    if (path === '/api/report') return send(500, 'application/json', '{"error":"report service unavailable"}')
    if (path === '/api/checkout')
      return send(500, 'application/json', '{"error":"payment provider unavailable"}')
    if (path === '/api/ok') return send(200, 'application/json', '{"ok":true}')
    const title = TITLES[path]
    if (title) return send(200, 'text/html; charset=utf-8', page(options, title))
    send(404, 'text/plain; charset=utf-8', 'Not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    // localhost, not 127.0.0.1: another site than the service's, as on a customer's domain.
    url: `http://localhost:${port}`,
    secrets: SECRETS,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
