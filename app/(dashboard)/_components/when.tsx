import { RelativeTime } from './relative-time'

/**
 * `<RelativeTime>` for server components: without a `now`, the server's clock, read here, is
 * handed to both the server and the browser render.
 */
export function When({ date, now, empty }: { date: Date | string | null; now?: number; empty?: string }) {
  return <RelativeTime date={date} now={now ?? Date.now()} empty={empty} />
}
