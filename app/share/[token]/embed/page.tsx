import styles from '../../share.module.css'
import { type SharedReplayPageProps, sharedReplayAddress, sharedReplayMetadata } from '../page-props'
import { SharedReplay } from '../shared-replay'

export const metadata = sharedReplayMetadata

/** The player alone, for an iframe on another site (the only page other sites may frame). */
export default async function EmbedPage(props: SharedReplayPageProps) {
  const { token, t } = await sharedReplayAddress(props)
  return (
    <main className={styles.embed} aria-label="Shared session replay">
      <SharedReplay token={token} t={t} />
    </main>
  )
}
