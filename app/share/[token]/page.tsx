import styles from '../share.module.css'
import { type SharedReplayPageProps, sharedReplayAddress, sharedReplayMetadata } from './page-props'
import { SharedReplay } from './shared-replay'

export const metadata = sharedReplayMetadata

export default async function SharePage(props: SharedReplayPageProps) {
  const { token, t } = await sharedReplayAddress(props)
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
