import type { RouteKind } from 'next/dist/server/route-kind'
import {
  type AppRouteRouteHandlerContext,
  AppRouteRouteModule,
  type AppRouteUserlandModule,
} from 'next/dist/server/route-modules/app-route/module.compiled'
import type { NextRequest } from 'next/server'

/**
 * next-auth's route handler run by Next's own app-route module, as `next start` runs it.
 * next-auth reads the request through next/headers, which only works inside Next's request
 * scope; a test file using this must import 'next/dist/server/node-environment-baseline' first,
 * before any Next module loads. `nextAuthRoute` is app/api/auth/[...nextauth]/route, imported by
 * the caller (usually after vi.resetModules, so configuration is parsed anew).
 */
export function nextAuthRouteHandler(
  nextAuthRoute: AppRouteUserlandModule,
): (request: NextRequest, action: string[]) => Promise<Response> {
  const module = new AppRouteRouteModule({
    userland: () => nextAuthRoute,
    definition: {
      // RouteKind is a const enum in Next's declarations; its value is this string.
      kind: 'APP_ROUTE' as RouteKind.APP_ROUTE,
      page: '/api/auth/[...nextauth]/route',
      pathname: '/api/auth/[...nextauth]',
      filename: 'route',
      bundlePath: 'app/api/auth/[...nextauth]/route',
    },
    distDir: '.next',
    relativeProjectDir: '',
    resolvedPagePath: 'app/api/auth/[...nextauth]/route.ts',
    nextConfigOutput: undefined,
  })
  return (request, action) => {
    // The parts of Next's per-request context a route handler without caching reads.
    const context = {
      params: { nextauth: action },
      renderOpts: { experimental: { cacheComponents: false, authInterrupts: false } },
      sharedContext: { buildId: 'test', deploymentId: '' },
    } as unknown as AppRouteRouteHandlerContext
    return module.handle(request, context)
  }
}
