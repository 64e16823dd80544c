import { RelativeTime } from './relative-time'

/**
 * `<RelativeTime>` for server components that have no `now` of their own: the server's
 * clock, read here, is handed to both the server and the browser render.
 */
export function When({ date, empty }: { date: Date | string | null; empty?: string }) {
  return <RelativeTime date={date} now={Date.now()} empty={empty} />
}
