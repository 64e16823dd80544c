import Link from 'next/link'

export default function NotFound() {
  return (
    <section className="card">
      <h1>Not found</h1>
      <p>This page does not exist in your organization, or it was deleted.</p>
      <Link href="/issues">Go to issues</Link>
    </section>
  )
}
