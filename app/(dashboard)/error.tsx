'use client'

import { useEffect } from 'react'

/** Shown when a dashboard page fails to render: says what to try, and offers the retry. */
export default function DashboardError({
  error,
  reset,
}: {
  error: Error & { digest?: string }
  reset: () => void
}) {
  useEffect(() => {
    console.error(error)
  }, [error])
  return (
    <section className="card" role="alert">
      <h1>This page could not be loaded</h1>
      <p>
        Something went wrong on our side while loading it. Try again; if it keeps failing, the server log has
        the details{error.digest ? ` under reference ${error.digest}` : ''}.
      </p>
      <button className="btn" type="button" onClick={reset}>
        Try again
      </button>
    </section>
  )
}
