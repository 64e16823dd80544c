import { INSIGHTS_PAGE, listInsights } from '@/lib/insights/list-insights'
import { listSignals, SIGNALS_PAGE } from '@/lib/signals/list-signals'
import { parseCursor, parseLimit } from './params'
import type { ApiRequest } from './request'

/** GET /api/v1/signals */
export async function listSignalsRequest({ db, principal, query }: ApiRequest<unknown>) {
  const page = await listSignals(db, principal, {
    limit: parseLimit(query.get('limit'), SIGNALS_PAGE),
    cursor: parseCursor(query.get('cursor')),
  })
  return { signals: page.items, nextCursor: page.nextCursor }
}

/** GET /api/v1/insights */
export async function listInsightsRequest({ db, principal, query }: ApiRequest<unknown>) {
  const page = await listInsights(db, principal, {
    limit: parseLimit(query.get('limit'), INSIGHTS_PAGE),
    cursor: parseCursor(query.get('cursor')),
  })
  return { insights: page.items, nextCursor: page.nextCursor }
}
