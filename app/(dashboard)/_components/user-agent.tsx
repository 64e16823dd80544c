import { describeUserAgent } from '@/lib/sessions/user-agent'

/** "Chrome 131 on macOS"; the string the browser sent on hover, or alone when unrecognised. */
export function UserAgent({
  userAgent,
  empty = 'not reported',
}: {
  userAgent: string | null
  empty?: string
}) {
  if (!userAgent) return <span className="muted">{empty}</span>
  return (
    <span title={userAgent} data-testid="user-agent">
      {describeUserAgent(userAgent) ?? userAgent}
    </span>
  )
}
