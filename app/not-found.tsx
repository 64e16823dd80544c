import type { Metadata } from 'next'
import Link from 'next/link'
import { NotFoundLinks } from '@/app/_components/not-found-links'

export const metadata: Metadata = { title: 'Page not found' }

/**
 * Any address no route answers: the product's own page (status 404), with a way back. Signed-out
 * visitors see it too, so it names nothing of any organization.
 */
export default function NotFound() {
  return (
    <main className="auth-shell">
      <section className="card auth-card not-found" aria-labelledby="not-found-heading">
        <Link className="brand not-found-brand" href="/">
          {/* biome-ignore lint/performance/noImgElement: a 32 px SVG, nothing for next/image to optimise */}
          <img src="/icon.svg" alt="" width={32} height={32} />
          Session Replay Issues
        </Link>
        <h1 id="not-found-heading">Page not found</h1>
        <p>There is nothing at this address. The link may be mistyped, or the page has moved.</p>
        <NotFoundLinks />
      </section>
    </main>
  )
}
