import { serve } from 'inngest/next'
import type { NextRequest } from 'next/server'
import type { InngestServeTarget } from '@/lib/jobs/inngest'

type RouteHandler = (request: Request, context?: unknown) => Promise<Response>

/**
 * GET/POST/PUT for /api/inngest, resolved on the first request rather than at import so the
 * build and a keyless deployment never need Inngest configured. `resolve` returns null when
 * jobs run in-process: the endpoint then answers 404, because serving the functions anyway
 * would let an Inngest dev server that auto-discovers localhost run them a second time next
 * to the in-process runner (and in cloud mode without a signing key the SDK only answers 500).
 * Lives under lib/http because it binds Next; lib/jobs stays framework-free.
 */
export function createInngestRoute(resolve: () => InngestServeTarget | null): {
  GET: RouteHandler
  POST: RouteHandler
  PUT: RouteHandler
} {
  let served: ReturnType<typeof serve> | undefined
  const handler =
    (method: 'GET' | 'POST' | 'PUT'): RouteHandler =>
    async (request, context) => {
      const target = resolve()
      if (!target)
        return Response.json(
          {
            error: 'inngest_not_enabled',
            message:
              'Background jobs run in-process. Set INNGEST_SIGNING_KEY and INNGEST_EVENT_KEY (or INNGEST_DEV=1) to serve them to Inngest.',
          },
          { status: 404 },
        )
      served ??= serve({ client: target.client, functions: target.functions })
      return served[method](request as NextRequest, context)
    }
  return { GET: handler('GET'), POST: handler('POST'), PUT: handler('PUT') }
}
