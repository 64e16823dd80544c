import type { AdoptionDay } from '@/lib/releases/views'
import styles from '../releases.module.css'

const WIDTH = 300
const HEIGHT = 60
const GAP = 2

const DAY_LABEL = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' })
const dayLabel = (day: string) => DAY_LABEL.format(new Date(`${day}T00:00:00Z`))

/** "42%" of a 0–1 share, whole percent unless it is under one, which would round to a misleading 0. */
export function sharePercent(share: number): string {
  const percent = share * 100
  if (percent > 0 && percent < 1) return '<1%'
  return `${Math.round(percent)}%`
}

/**
 * Sessions of the release per UTC day as bars, drawn on the server (no script) in a viewBox that
 * follows the card's width. The drawing is one image with a short summary for screen readers;
 * the figures themselves are the table under it, so nothing is only in the picture.
 */
export function AdoptionChart({ days }: { days: AdoptionDay[] }) {
  const total = days.reduce((sum, d) => sum + d.sessions, 0)
  const max = Math.max(1, ...days.map((d) => d.sessions))
  const busiest = days.reduce<AdoptionDay | null>(
    (best, d) => (best && best.sessions >= d.sessions ? best : d),
    null,
  )
  const slot = WIDTH / Math.max(1, days.length)
  const first = days[0]
  const last = days.at(-1)
  const summary =
    total === 0 || !busiest
      ? `No sessions ran this release in the last ${days.length} days.`
      : `${total} ${total === 1 ? 'session' : 'sessions'} in the last ${days.length} days; the most, ${busiest.sessions}, on ${dayLabel(busiest.day)}.`
  return (
    <figure className={styles.chart}>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        className={styles.svg}
        role="img"
        aria-label={`Sessions of this release per day. ${summary} The figures are in the table below.`}
        data-testid="adoption-chart"
      >
        <line x1={0} y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} className={styles.axis} />
        {days.map((d, i) => {
          const height = d.sessions === 0 ? 0 : Math.max(2, (d.sessions / max) * (HEIGHT - 4))
          return (
            <rect
              key={d.day}
              x={i * slot + GAP / 2}
              y={HEIGHT - height}
              width={Math.max(0.5, slot - GAP)}
              height={height}
              className={styles.bar}
            >
              <title>{`${dayLabel(d.day)}: ${d.sessions} ${d.sessions === 1 ? 'session' : 'sessions'}, ${sharePercent(d.share)} of the day's sessions`}</title>
            </rect>
          )
        })}
      </svg>
      {first && last ? (
        <div className={`muted ${styles.axisLabels}`} aria-hidden="true">
          <span>{dayLabel(first.day)}</span>
          {total > 0 ? <span>most {busiest?.sessions} a day</span> : null}
          <span>{dayLabel(last.day)}</span>
        </div>
      ) : null}
      <figcaption className="muted">{summary}</figcaption>
      <details className={styles.perDay}>
        <summary>Figures per day</summary>
        <div className="table-wrap">
          <table className={`table ${styles.perDayTable}`} data-testid="adoption-table">
            <caption className="visually-hidden">Sessions of this release per UTC day</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" className={styles.number}>
                  Sessions
                </th>
                <th scope="col" className={styles.number}>
                  Share of the day
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.day}>
                  <td>
                    <time dateTime={d.day}>{d.day}</time>
                  </td>
                  <td className={styles.number}>{d.sessions}</td>
                  <td className={styles.number}>{sharePercent(d.share)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  )
}
