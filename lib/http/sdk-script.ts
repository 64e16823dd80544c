import { etagMatches, readSdkScript, SDK_PACKAGE, type SdkFile, type SdkScript } from '@/lib/sdk/bundle'
import { json } from './respond'

/** Customers' pages load the recorder cross-origin; a short max-age lets a new build spread within minutes. */
const HEADERS = {
  'Cache-Control': 'public, max-age=300',
  'Access-Control-Allow-Origin': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'X-Content-Type-Options': 'nosniff',
}

const CONTENT_TYPE: Record<SdkFile, string> = {
  'sdk.js': 'text/javascript; charset=utf-8',
  'sdk-network.js': 'text/javascript; charset=utf-8',
  'sdk.tgz': 'application/gzip',
}

/**
 * The answer to a GET of one of the recorder's built files: the file with a content ETag (304
 * on a match), or 503 when it was never built. `cwd` is the app's directory (tests pass their own).
 */
export function sdkFileResponse(req: Request, name: SdkFile, cwd?: string): Response {
  const bundle = readSdkScript(name, cwd)
  if (!bundle)
    return json(
      {
        error: `The recorder ${name === SDK_PACKAGE ? 'package' : 'script'} has not been built: run \`npm run build:sdk\` (or \`npm run build\`) on the server.`,
      },
      503,
      { 'Retry-After': '60' },
    )
  const headers: Record<string, string> = {
    ...HEADERS,
    'Content-Type': CONTENT_TYPE[name],
    ETag: bundle.etag,
  }
  if (etagMatches(req.headers.get('if-none-match'), bundle.etag))
    return new Response(null, { status: 304, headers })
  return new Response(bundle.body, { status: 200, headers })
}

/** A GET handler for one of the recorder's script files (`/sdk.js`, `/sdk-network.js`). */
export function sdkScriptRoute(name: SdkScript) {
  return (req: Request): Response => sdkFileResponse(req, name)
}

/** The GET handler of `/sdk.tgz`: the recorder as an npm package (`npm install https://…/sdk.tgz`). */
export function sdkPackageRoute() {
  return (req: Request): Response => sdkFileResponse(req, SDK_PACKAGE)
}
