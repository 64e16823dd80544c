'use client'

import Link from 'next/link'
import { useRouter } from 'next/navigation'
import { type ReactNode, useEffect, useRef, useState } from 'react'
import type { FirstRunProgress } from '@/lib/orgs/first-run'
import { firstRunProgressAction } from './actions'
import styles from './overview.module.css'

const POLL_MS = 3000

const STEP_KEYS = ['keyCreated', 'batchReceived', 'sessionAnalysed', 'issueFound'] as const
const allDone = (p: FirstRunProgress) => STEP_KEYS.every((key) => p[key])

function Step({ done, n, id, children }: { done: boolean; n: number; id: string; children: ReactNode }) {
  return (
    <li className={`${styles.step} ${done ? styles.done : ''}`} data-step={id} data-done={done}>
      <span className={styles.mark} aria-hidden="true">
        {done ? '✓' : n}
      </span>
      <div className={styles.body}>
        {children}
        <span className="visually-hidden">{done ? ' (done)' : ' (not yet)'}</span>
      </div>
    </li>
  )
}

/**
 * The getting-started steps, turning green as they happen: the page asks the server every few
 * seconds while a step remains (not while the tab is hidden), and stops once all are done. A
 * step done refreshes the page's server parts (figures, chart, latest issues); the card stays
 * for as long as the page is open, so the last step is seen turning green.
 */
export function FirstRunSteps({
  progress: rendered,
  snippet,
  idle,
}: {
  progress: FirstRunProgress
  snippet: string
  /** How long after its last activity a session is analysed, e.g. "a minute". */
  idle: string
}) {
  const router = useRouter()
  // State, not props: a refresh re-renders with new props, but the card shown stays shown.
  const [hidden] = useState(() => allDone(rendered))
  const [progress, setProgress] = useState(rendered)
  const known = useRef(rendered)
  const finished = allDone(progress)

  useEffect(() => {
    if (finished) return
    let cancelled = false
    const poll = async () => {
      if (document.visibilityState === 'hidden') return
      const answer = await firstRunProgressAction().catch(() => null)
      const next = answer?.ok ? answer.progress : null
      if (!next || cancelled || STEP_KEYS.every((key) => next[key] === known.current[key])) return
      known.current = next
      setProgress(next)
      router.refresh()
    }
    const timer = setInterval(poll, POLL_MS)
    return () => {
      cancelled = true
      clearInterval(timer)
    }
  }, [finished, router])

  if (hidden) return null
  return (
    <section className="card" aria-labelledby="start-recording">
      <h2 id="start-recording">Start recording sessions</h2>
      <ol className={styles.steps} aria-live="polite">
        <Step id="key" n={1} done={progress.keyCreated}>
          {progress.keyCreated ? (
            <>
              Ingest key created. Its full value was shown once;{' '}
              <Link href="/settings/keys">create another</Link> if you no longer have it.
            </>
          ) : (
            <>
              <Link href="/settings/keys">Create an ingest key</Link> under Settings → Keys (public, safe in
              client-side code). The page shows the recorder snippet with your key filled in, once: copy it
              then.
            </>
          )}
        </Step>
        <Step id="batch" n={2} done={progress.batchReceived}>
          {progress.batchReceived ? 'First recording received.' : 'Add the recorder as the first tag in the '}
          {progress.batchReceived ? null : (
            <>
              <code>&lt;head&gt;</code> of your pages, with your key, and open one:
              <pre>{snippet}</pre>
            </>
          )}
        </Step>
        <Step id="analysed" n={3} done={progress.sessionAnalysed}>
          {progress.sessionAnalysed ? (
            <>
              First session analysed: see <Link href="/sessions">Sessions</Link>.
            </>
          ) : (
            `Use the page, then close the tab: the session is analysed at once when its last page closes, or ${idle} after its last activity.`
          )}
        </Step>
        <Step id="issue" n={4} done={progress.issueFound}>
          {progress.issueFound ? (
            <>
              First issue found: see <Link href="/issues">Issues</Link>.
            </>
          ) : (
            'Issues appear once a session shows errors, failed requests or frustrated clicks.'
          )}
        </Step>
      </ol>
    </section>
  )
}
