import { etagMatches, readSdkScript, type SdkScript } from '@/lib/sdk/bundle'
import { json } from './respond'

/** Customers' pages load the recorder cross-origin; a short max-age lets a new build spread within minutes. */
const HEADERS = {
  'Content-Type': 'text/javascript; charset=utf-8',
  'Cache-Control': 'public, max-age=300',
  'Access-Control-Allow-Origin': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'X-Content-Type-Options': 'nosniff',
}

/**
 * A GET handler for one of the recorder's script files (`/sdk.js`, `/sdk-network.js`): the
 * built file with a content ETag (304 on a match), or 503 when it was never built.
 */
export function sdkScriptRoute(name: SdkScript) {
  return (req: Request): Response => {
    const bundle = readSdkScript(name)
    if (!bundle)
      return json(
        {
          error:
            'The recorder script has not been built: run `npm run build:sdk` (or `npm run build`) on the server.',
        },
        503,
        { 'Retry-After': '60' },
      )
    const headers = { ...HEADERS, ETag: bundle.etag }
    if (etagMatches(req.headers.get('if-none-match'), bundle.etag))
      return new Response(null, { status: 304, headers })
    return new Response(bundle.body, { status: 200, headers })
  }
}
