import { logger, withLogContext } from '@/lib/log'
import { newRequestId } from './respond'

export type Surface = 'ingest' | 'data-api' | 'mcp' | 'oauth' | 'dashboard-api' | 'share'

/**
 * The path as the access line keeps it. A share link's path holds its token, which opens the
 * replay to whoever reads it (only its hash is stored: docs/sharing.md), so the line names the
 * route instead; every other surface's path holds ids, never a credential.
 */
function loggedPath(surface: Surface, pathname: string): string {
  if (surface !== 'share') return pathname
  const [, api, share, , ...rest] = pathname.split('/')
  return ['', api, share, '[token]', ...rest].join('/')
}

/**
 * Gives one request its id and runs the answer inside it, so every line logged on the way —
 * and every job and webhook delivery it causes — carries that id; then logs the request's
 * one access line. Only the path is logged: queries carry credentials (`api_key` on beacon
 * uploads) and OAuth parameters.
 */
export async function traced(
  surface: Surface,
  req: { method: string; url: string },
  answer: (requestId: string) => Promise<Response>,
): Promise<Response> {
  const requestId = newRequestId()
  const started = performance.now()
  return withLogContext({ requestId }, async () => {
    const response = await answer(requestId)
    // The access line's fields (a URL parse among them) only when it will be written.
    if (!logger.isLevelEnabled('info')) return response
    logger.info(
      {
        surface,
        method: req.method,
        path: loggedPath(surface, new URL(req.url, 'http://request.invalid').pathname),
        status: response.status,
        // Until the answer's head: a streamed body (MCP, replay events) goes on after it.
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    )
    return response
  })
}
