/**
 * The tag a customer pastes first in their pages' <head>: one script that loads the recorder
 * from this service and starts it from its own data attributes, so console, error and network
 * capture are installed before any of the page's scripts run (docs/design/analysis.md §4.1). `crossorigin`
 * makes the cross-origin script non-opaque: without it the browser reports errors passing
 * through the recorder as `Script error.` and fires no unhandledrejection for failed fetches.
 */
export function recorderSnippet(input: { baseUrl: string; ingestUrl: string; apiKey: string }): string {
  const attribute = (value: string) => value.replaceAll('&', '&amp;').replaceAll('"', '&quot;')
  return `<script src="${attribute(`${input.baseUrl}/sdk.js`)}" crossorigin="anonymous" data-api-key="${attribute(input.apiKey)}" data-ingest-url="${attribute(input.ingestUrl)}"></script>`
}
