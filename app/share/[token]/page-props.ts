import type { Metadata } from 'next'

/** A shared replay is for whoever holds the link: never indexed, never sent on as a referrer. */
export const sharedReplayMetadata: Metadata = {
  title: 'Shared replay',
  robots: { index: false, follow: false },
  referrer: 'no-referrer',
}

export interface SharedReplayPageProps {
  params: Promise<{ token: string }>
  searchParams: Promise<{ t?: string | string[] }>
}

/** The link's token and the moment (`?t=`) the replay starts at, as the page's address gives them. */
export async function sharedReplayAddress({ params, searchParams }: SharedReplayPageProps) {
  const [{ token }, { t }] = await Promise.all([params, searchParams])
  return { token, t }
}
