import type { replaySessions } from '@/db/schema'

type SessionRow = typeof replaySessions.$inferSelect

/** A session's figures as every surface shows them; null until the session is analysed. */
export interface SessionFigures {
  /**
   * Page views: every page load and every SPA navigation, so a page visited twice counts twice
   * (lib/analysis/page.ts).
   */
  pages: number | null
  /**
   * Error events: uncaught errors and rejections plus console.error calls, a console.error that
   * reports an uncaught error within a second counting once with it (lib/analysis/detectors/errors.ts).
   */
  errors: number | null
}

/**
 * The one source of a session's page and error figures for the sessions list, the session page,
 * the API's details and both summaries. The analysis counts them over the whole recording; the
 * facts a summary reads are a bounded trail that may be cut short and names console errors apart
 * from thrown ones, so counting those instead made the list and the summary disagree.
 */
export function sessionFigures(row: Pick<SessionRow, 'pageCount' | 'errorCount'>): SessionFigures {
  return { pages: row.pageCount, errors: row.errorCount }
}
