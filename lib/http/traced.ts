import { logger, withLogContext } from '@/lib/log'
import { newRequestId } from './respond'

export type Surface = 'ingest' | 'data-api' | 'mcp' | 'oauth' | 'dashboard-api' | 'share'

/**
 * Gives one request its id and runs the answer inside it, so every line logged on the way —
 * and every job and webhook delivery it causes — carries that id; then logs the request's
 * one access line. Only the path is logged: queries carry credentials (`api_key` on beacon
 * uploads) and OAuth parameters.
 */
export async function traced(
  surface: Surface,
  req: Request,
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
        path: new URL(req.url).pathname,
        status: response.status,
        // Until the answer's head: a streamed body (MCP, replay events) goes on after it.
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    )
    return response
  })
}
