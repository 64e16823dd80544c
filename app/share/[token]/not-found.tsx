import type { Metadata } from 'next'

export const metadata: Metadata = { title: 'Link not available', robots: { index: false, follow: false } }

/**
 * An unknown, revoked or expired link, or one whose session was deleted: one page for all, so
 * it tells nobody which links exist.
 */
export default function ShareNotFound() {
  return (
    <main className="auth-shell">
      <section className="card auth-card not-found" aria-labelledby="share-missing-heading">
        <h1 id="share-missing-heading">This link does not work</h1>
        <p data-testid="share-unavailable">
          The replay link is not valid: it may have expired or been revoked, or it was copied incompletely.
          Ask whoever sent it for a new link.
        </p>
      </section>
    </main>
  )
}
