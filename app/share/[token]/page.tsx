import type { Metadata } from 'next'
import styles from '../share.module.css'
import { SharedReplay } from './shared-replay'

export const metadata: Metadata = {
  title: 'Shared replay',
  robots: { index: false, follow: false },
  referrer: 'no-referrer',
}

export default async function SharePage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>
  searchParams: Promise<{ t?: string | string[] }>
}) {
  const { token } = await params
  const { t } = await searchParams
  return (
    <main className={styles.page}>
      <h1 className={styles.heading}>Shared session replay</h1>
      <p className="muted">
        A recording of a visit to a website, shared with you by link. Text the site marked as private is
        masked.
      </p>
      <section className={`card ${styles.player}`} aria-label="Replay">
        <SharedReplay token={token} t={t} />
      </section>
    </main>
  )
}
