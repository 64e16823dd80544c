import Link from 'next/link'
import type { SavedSearchDays } from '@/lib/saved-searches/daily-counts'
import styles from './overview.module.css'

const WIDTH = 280
const HEIGHT = 40
const GAP = 3

const DAY_LABEL = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' })
const dayLabel = (day: string) => DAY_LABEL.format(new Date(`${day}T00:00:00Z`))

/** One saved search's days as bars, drawn on the server; the table below says the same in text. */
function Bars({ search }: { search: SavedSearchDays }) {
  const values = search.days.map((d) => d.sessions)
  const max = Math.max(1, ...values)
  const slot = WIDTH / search.days.length
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      preserveAspectRatio="none"
      className={styles.spark}
      aria-hidden="true"
    >
      <line x1={0} y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} className={styles.axis} />
      {search.days.map((d, i) => {
        const height = d.sessions === 0 ? 0 : Math.max(2, (d.sessions / max) * (HEIGHT - 4))
        return (
          <rect
            key={d.day}
            x={i * slot + GAP / 2}
            y={HEIGHT - height}
            width={slot - GAP}
            height={height}
            className={styles.sessionBar}
          >
            <title>{`${dayLabel(d.day)}: ${d.sessions}`}</title>
          </rect>
        )
      })}
    </svg>
  )
}

/**
 * The overview's card of saved searches: sessions each one found per day (by the day the server
 * received them), as bars and as a table for screen readers and exact figures.
 */
export function SavedSearchCounts({ searches, more }: { searches: SavedSearchDays[]; more: boolean }) {
  const days = searches[0]?.days ?? []
  return (
    <section className="card" aria-labelledby="saved-search-counts">
      <div className="page-header">
        <h2 id="saved-search-counts">Saved searches, last {days.length || 14} days</h2>
        <Link href="/sessions/saved">{more ? 'All saved searches' : 'Manage saved searches'}</Link>
      </div>
      {searches.length === 0 ? (
        <p className="muted">
          No saved search yet. Save a search from <Link href="/sessions/saved">Saved searches</Link> to follow
          how many sessions it finds each day.
        </p>
      ) : (
        <>
          <ul className={styles.searchList}>
            {searches.map((search) => {
              const total = search.days.reduce((a, d) => a + d.sessions, 0)
              return (
                <li key={search.id} className={styles.searchRow} data-testid="saved-search-count">
                  <div className={styles.searchName}>
                    <Link href={`/sessions?q=${encodeURIComponent(search.query)}`}>{search.name}</Link>{' '}
                    <span className="muted">
                      {search.invalid
                        ? 'query no longer valid'
                        : search.timedOut
                          ? 'took too long to count'
                          : `${search.capped ? 'at least ' : ''}${total} ${total === 1 ? 'session' : 'sessions'}`}
                    </span>
                  </div>
                  <Bars search={search} />
                </li>
              )
            })}
          </ul>
          <details>
            <summary>As a table</summary>
            <div className="table-wrap">
              <table className="table">
                <caption className="muted">Sessions found per day (UTC), oldest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Saved search</th>
                    {days.map((d) => (
                      <th scope="col" key={d.day}>
                        {dayLabel(d.day)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {searches.map((search) => (
                    <tr key={search.id}>
                      <th scope="row">{search.name}</th>
                      {search.days.map((d) => (
                        <td key={d.day}>{d.sessions}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  )
}
