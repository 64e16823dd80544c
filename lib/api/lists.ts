import type { DataApiContext } from '@/lib/http/data-api'
import { INSIGHTS_PAGE, listInsights } from '@/lib/insights/list-insights'
import { listSignals, SIGNALS_PAGE } from '@/lib/signals/list-signals'
import { parseCursor, parseLimit } from './params'

/** GET /api/v1/signals */
export async function listSignalsRequest({ db, principal, url }: DataApiContext<unknown>) {
  const page = await listSignals(db, principal, {
    limit: parseLimit(url.searchParams.get('limit'), SIGNALS_PAGE),
    cursor: parseCursor(url.searchParams.get('cursor')),
  })
  return { signals: page.items, nextCursor: page.nextCursor }
}

/** GET /api/v1/insights */
export async function listInsightsRequest({ db, principal, url }: DataApiContext<unknown>) {
  const page = await listInsights(db, principal, {
    limit: parseLimit(url.searchParams.get('limit'), INSIGHTS_PAGE),
    cursor: parseCursor(url.searchParams.get('cursor')),
  })
  return { insights: page.items, nextCursor: page.nextCursor }
}
