import { NotFoundLinks } from '@/app/_components/not-found-links'

/** An unknown or deleted id inside the dashboard (an issue, a session, …), under the usual header. */
export default function NotFound() {
  return (
    <section className="card" aria-labelledby="not-found-heading">
      <h1 id="not-found-heading">Not found</h1>
      <p>This page does not exist in your organization, or it was deleted.</p>
      <NotFoundLinks />
    </section>
  )
}
