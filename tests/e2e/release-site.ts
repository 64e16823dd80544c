/**
 * A customer site that ships releases, for the releases browser test: every release serves the
 * same page from one origin (so a reproduction recorded on one runs unchanged on another), with
 * the recorder told which release it runs (`release` in SessionReplay.init, sent as
 * `metadata.release`). A buggy release's "Apply coupon" throws a TypeError; a fixed one applies
 * no coupon and says so. `serve()` switches the release served, as a deploy (or a preview) does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReleaseSite {
  url: string
  /** From now on, serve `release`, with the bug or without it. */
  serve(release: string, build: { buggy: boolean }): void
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
`

const FIXED_JS = `
document.getElementById('apply-coupon').addEventListener('click', () => {
  const coupon = window.__coupon;
  document.getElementById('coupon-status').textContent = coupon ? 'Coupon ' + coupon.code : 'No coupon to apply';
});
`

function page(serviceUrl: string, apiKey: string, release: string): string {
  const init = JSON.stringify({ apiKey, ingestUrl: serviceUrl, flushIntervalMs: 500, release }).replaceAll(
    '<',
    '\\u003c',
  )
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Release shop</title>
<script src="${serviceUrl}/sdk.js" crossorigin="anonymous"></script>
<script>SessionReplay.init(${init})</script>
</head>
<body>
<h1>Release shop</h1>
<button id="apply-coupon" type="button">Apply coupon</button>
<p id="coupon-status" role="status"></p>
<script src="/app.js"></script>
</body>
</html>`
}

export async function startReleaseSite(options: {
  serviceUrl: string
  apiKey: string
}): Promise<ReleaseSite> {
  let current = { release: '', buggy: true }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://release').pathname
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' })
      res.end(body)
    }
    if (!current.release) return send(503, 'text/plain; charset=utf-8', 'No release deployed')
    if (path === '/')
      return send(200, 'text/html; charset=utf-8', page(options.serviceUrl, options.apiKey, current.release))
    if (path === '/app.js')
      return send(200, 'text/javascript; charset=utf-8', current.buggy ? BUGGY_JS : FIXED_JS)
    send(404, 'text/plain; charset=utf-8', 'Not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    // localhost, not 127.0.0.1: another site than the service's, as on a customer's domain.
    url: `http://localhost:${port}`,
    serve: (release, build) => {
      current = { release, buggy: build.buggy }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
