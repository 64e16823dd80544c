import { notFound } from 'next/navigation'
import { ReplayPlayer } from '@/app/(dashboard)/_components/replay-player'
import { getDb } from '@/lib/db'
import { openSharedReplay } from '@/lib/sharing/open-shared'

/** `?t=` is milliseconds after the session started, as on the dashboard's session page. */
function parseOffset(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  if (!text || !/^\d{1,10}$/.test(text)) return undefined
  return Number(text)
}

/**
 * The player of a share link and nothing else of the organization: no session id, user,
 * issues, console or network panes (docs/sharing.md#what-a-link-shows). An unknown, revoked
 * or expired link is the segment's not-found page, the same for each.
 */
export async function SharedReplay({ token, t }: { token: string; t: string | string[] | undefined }) {
  const shared = await openSharedReplay(await getDb(), token)
  if (!shared) notFound()
  const offset = parseOffset(t) ?? shared.startAtMs ?? undefined
  const openAt = offset === undefined ? undefined : shared.startedAt.getTime() + offset
  return <ReplayPlayer shareToken={token} openAt={openAt} />
}
