import type { Metadata } from 'next'
import styles from '../../share.module.css'
import { SharedReplay } from '../shared-replay'

export const metadata: Metadata = {
  title: 'Shared replay',
  robots: { index: false, follow: false },
  referrer: 'no-referrer',
}

/** The player alone, for an iframe on another site (the only page other sites may frame). */
export default async function EmbedPage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>
  searchParams: Promise<{ t?: string | string[] }>
}) {
  const { token } = await params
  const { t } = await searchParams
  return (
    <main className={styles.embed} aria-label="Shared session replay">
      <SharedReplay token={token} t={t} />
    </main>
  )
}
