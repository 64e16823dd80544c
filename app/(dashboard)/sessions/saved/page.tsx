import type { Metadata } from 'next'
import Link from 'next/link'
import { ConfirmButton } from '@/app/(dashboard)/settings/_components/confirm-button'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { allSavedSearches } from '@/lib/saved-searches/saved-searches'
import { deleteSavedSearchAction } from './actions'
import { SavedSearchForm } from './saved-search-form'

export const metadata: Metadata = { title: 'Saved searches' }

type SearchParams = Promise<Record<string, string | string[] | undefined>>

/**
 * The organization's saved searches (docs/saved-searches.md): open one as a sessions search,
 * change or delete it, or save a new one (prefilled from `?q=`, where "Save this search" links).
 */
export default async function SavedSearchesPage({ searchParams }: { searchParams: SearchParams }) {
  const { organization } = await requireMember('/sessions/saved')
  const q = (await searchParams).q
  const initialQuery = (typeof q === 'string' ? q : '').slice(0, 1000)
  const searches = await allSavedSearches(await getDb(), organization.id)
  return (
    <>
      <section>
        <p>
          <Link href="/sessions">← Sessions</Link>
        </p>
        <h1>Saved searches</h1>
        <p className="muted">
          Named searches shared with everyone in {organization.name}. A signal or an alert rule can use one as
          its filter, and the overview counts the sessions each one finds per day.
        </p>
      </section>
      <section className="card" aria-labelledby="new-saved-search">
        <h2 id="new-saved-search">Save a search</h2>
        <SavedSearchForm initialQuery={initialQuery} />
      </section>
      <section className="card" aria-labelledby="saved-search-list">
        <h2 id="saved-search-list">
          {searches.length} {searches.length === 1 ? 'saved search' : 'saved searches'}
        </h2>
        {searches.length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <ul className="issue-list">
            {searches.map((search) => (
              <li key={search.id} data-testid="saved-search">
                <Link href={`/sessions?q=${encodeURIComponent(search.query)}`}>{search.name}</Link>{' '}
                <code>{search.query}</code>{' '}
                <ConfirmButton
                  action={deleteSavedSearchAction.bind(null, search.id)}
                  confirm={`Delete the saved search “${search.name}”?`}
                  label="Delete"
                  pendingLabel="Deleting…"
                  accessibleLabel={`Delete ${search.name}`}
                  danger
                />
                <details>
                  <summary>Change</summary>
                  <SavedSearchForm existing={search} />
                </details>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  )
}
