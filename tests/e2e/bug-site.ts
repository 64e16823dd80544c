/**
 * A customer site with three real bugs, for the reproduction browser test: a button whose
 * handler throws a TypeError, a button whose request gets a 500, and a button that does nothing.
 * `fix()` serves the fixed version from the same origin, so a test recorded against the bugs
 * runs unchanged against the fix.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface BugSite {
  url: string
  /** From now on, serve the fixed page and API. */
  fix(): void
  /** From now on, serve the buggy page and API again (a staging site not yet fixed). */
  unfix(): void
  stop(): Promise<void>
}

const BUGGY_JS = `
function applyCoupon() {
  const coupon = window.__coupon;
  return coupon.code.trim();
}
document.getElementById('apply-coupon').addEventListener('click', () => {
  document.getElementById('coupon-status').textContent = 'Coupon ' + applyCoupon();
});
document.getElementById('load-report').addEventListener('click', async () => {
  const response = await fetch('/api/report', { method: 'POST' });
  document.getElementById('report-status').textContent = 'Report ' + response.status;
});
// The subscribe button was never wired up.
`

const FIXED_JS = `
document.getElementById('apply-coupon').addEventListener('click', () => {
  const coupon = window.__coupon;
  document.getElementById('coupon-status').textContent = coupon ? 'Coupon ' + coupon.code : 'No coupon to apply';
});
document.getElementById('load-report').addEventListener('click', async () => {
  const response = await fetch('/api/report', { method: 'POST' });
  document.getElementById('report-status').textContent = 'Report ' + response.status;
});
document.getElementById('subscribe').addEventListener('click', () => {
  document.getElementById('subscribe-status').textContent = 'Subscribed';
});
`

function page(serviceUrl: string, apiKey: string): string {
  const init = JSON.stringify({ apiKey, ingestUrl: serviceUrl, flushIntervalMs: 500 }).replaceAll(
    '<',
    '\\u003c',
  )
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Bug shop</title>
<script src="${serviceUrl}/sdk.js" crossorigin="anonymous"></script>
<script>SessionReplay.init(${init})</script>
</head>
<body>
<h1>Bug shop</h1>
<button id="apply-coupon" type="button">Apply coupon</button>
<p id="coupon-status" role="status"></p>
<button id="load-report" type="button">Load report</button>
<p id="report-status"></p>
<button id="subscribe" type="button">Subscribe</button>
<p id="subscribe-status"></p>
<script src="/app.js"></script>
</body>
</html>`
}

export async function startBugSite(options: { serviceUrl: string; apiKey: string }): Promise<BugSite> {
  let fixed = false
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://bug').pathname
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' })
      res.end(body)
    }
    if (path === '/') return send(200, 'text/html; charset=utf-8', page(options.serviceUrl, options.apiKey))
    if (path === '/app.js') return send(200, 'text/javascript; charset=utf-8', fixed ? FIXED_JS : BUGGY_JS)
    if (path === '/api/report')
      return fixed
        ? send(200, 'application/json', '{"rows":[]}')
        : send(500, 'application/json', '{"error":"report service unavailable"}')
    send(404, 'text/plain; charset=utf-8', 'Not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    // localhost, not 127.0.0.1: another site than the service's, as on a customer's domain.
    url: `http://localhost:${port}`,
    fix: () => {
      fixed = true
    },
    unfix: () => {
      fixed = false
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
