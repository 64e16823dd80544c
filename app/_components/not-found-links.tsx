import Link from 'next/link'

/** The ways back from a page that is not there, the same on the dashboard's and the site's 404. */
export function NotFoundLinks() {
  return (
    <p className="toolbar">
      <Link className="btn btn-accent" href="/issues">
        Go to issues
      </Link>
      <Link className="btn" href="/">
        Overview
      </Link>
    </p>
  )
}
