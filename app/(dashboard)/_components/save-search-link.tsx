import Link from 'next/link'

/**
 * "Save this search": for the sessions page's query box, next to a query that parsed. It opens
 * Saved searches with the query filled in, where it is named and saved.
 */
export function SaveSearchLink({ query }: { query: string }) {
  if (!query.trim()) return null
  return (
    <Link className="btn btn-small" href={`/sessions/saved?q=${encodeURIComponent(query)}`}>
      Save this search
    </Link>
  )
}
