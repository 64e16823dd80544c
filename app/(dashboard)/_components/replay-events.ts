import type { eventWithTime } from '@rrweb/types'
import { maskedNumbersAsText } from './replay-number-inputs'

/** Fetching a session's events for the player, and what the player reads from them. */

export type Loaded =
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'empty' }
  | { state: 'ready'; events: eventWithTime[]; start: number; end: number }

// rrweb's event types: a replay needs the page's full snapshot to draw anything.
const FULL_SNAPSHOT = 2
const META = 4

function isEvent(value: unknown): value is eventWithTime {
  if (typeof value !== 'object' || value === null) return false
  const event = value as { type?: unknown; timestamp?: unknown }
  return (
    typeof event.type === 'number' && typeof event.timestamp === 'number' && Number.isFinite(event.timestamp)
  )
}

/** What a 404 means where the player is: the dashboard's session, or a share link. */
export type EventsSource = { sessionId: string } | { shareToken: string }

function eventsUrl(source: EventsSource): string {
  return 'shareToken' in source
    ? `/api/share/${encodeURIComponent(source.shareToken)}/events`
    : `/api/dashboard/sessions/${encodeURIComponent(source.sessionId)}/events`
}

async function failureMessage(response: Response, source: EventsSource): Promise<string> {
  if (response.status === 401) return 'Your sign-in has expired. Sign in again, then reload this page.'
  if (response.status === 404)
    return 'shareToken' in source
      ? 'This link no longer works. Ask whoever sent it for a new one.'
      : 'This session no longer exists in your organization.'
  if (response.status === 429) return 'Too many requests from your network. Retry in a minute.'
  const body = (await response.json().catch(() => null)) as { error?: unknown } | null
  const detail = typeof body?.error === 'string' ? ` (${body.error})` : ''
  return `The recording could not be loaded: the server answered ${response.status}${detail}. Retry in a moment.`
}

export async function loadEvents(source: EventsSource, signal: AbortSignal): Promise<Loaded> {
  let response: Response
  try {
    response = await fetch(eventsUrl(source), {
      cache: 'no-store',
      signal,
    })
  } catch (error) {
    if (signal.aborted) throw error
    return {
      state: 'error',
      message: 'The recording could not be downloaded. Check your connection and retry.',
    }
  }
  if (!response.ok) return { state: 'error', message: await failureMessage(response, source) }
  let body: unknown
  try {
    body = await response.json()
  } catch (error) {
    if (signal.aborted) throw error
    return { state: 'error', message: 'The recording was cut off while downloading. Retry.' }
  }
  if (!Array.isArray(body))
    return { state: 'error', message: 'The server sent something that is not a recording. Retry.' }
  const events = body.filter(isEvent).sort((a, b) => a.timestamp - b.timestamp)
  if (events.length < 2 || !events.some((event) => event.type === FULL_SNAPSHOT)) return { state: 'empty' }
  // Freshly parsed, so rewriting in place touches nothing else.
  maskedNumbersAsText(events)
  return { state: 'ready', events, start: events[0]!.timestamp, end: events[events.length - 1]!.timestamp }
}

/** The recorded page's viewport (from rrweb's Meta event): its size at 100 % and its shape. */
export function recordedSize(events: eventWithTime[]): { width: number; height: number } | null {
  for (const event of events) {
    if (event.type !== META) continue
    const { width, height } = event.data as { width?: unknown; height?: unknown }
    if (typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0)
      return { width: Math.min(width, 10_000), height: Math.min(height, 10_000) }
  }
  return null
}

/** The recorded page's aspect ratio, to size the stage without bars. */
export function recordedAspect(events: eventWithTime[]): number {
  const size = recordedSize(events)
  return size ? size.height / size.width : 10 / 16
}
