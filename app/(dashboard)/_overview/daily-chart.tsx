import type { DayActivity } from '@/lib/orgs/daily-activity'
import styles from './overview.module.css'

const WIDTH = 280
const HEIGHT = 60
const GAP = 4

const DAY_LABEL = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' })
const dayLabel = (day: string) => DAY_LABEL.format(new Date(`${day}T00:00:00Z`))

/**
 * One bar per day in a viewBox scaled to the card's width (no fixed pixel width, so it fits a
 * phone); the labels are HTML, so they keep their size when the drawing shrinks.
 */
function Bars({ days, series, name }: { days: DayActivity[]; series: 'sessions' | 'issues'; name: string }) {
  const values = days.map((d) => d[series])
  const max = Math.max(1, ...values)
  const total = values.reduce((a, b) => a + b, 0)
  const slot = WIDTH / days.length
  return (
    <figure className={styles.chart}>
      <figcaption>
        <strong>{total}</strong> <span className="muted">{name}</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        className={styles.svg}
        role="img"
        aria-label={`${name} per day, last ${days.length} days: ${days.map((d) => `${dayLabel(d.day)} ${d[series]}`).join(', ')}`}
      >
        <line x1={0} y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} className={styles.axis} />
        {days.map((d, i) => {
          const value = d[series]
          const height = value === 0 ? 0 : Math.max(2, (value / max) * (HEIGHT - 4))
          return (
            <rect
              key={d.day}
              x={i * slot + GAP / 2}
              y={HEIGHT - height}
              width={slot - GAP}
              height={height}
              className={series === 'issues' ? styles.issueBar : styles.sessionBar}
            >
              <title>{`${dayLabel(d.day)}: ${value} ${name.toLowerCase()}`}</title>
            </rect>
          )
        })}
      </svg>
      <div className={`muted ${styles.axisLabels}`}>
        <span>{dayLabel(days[0]!.day)}</span>
        <span>most {Math.max(0, ...values)} a day</span>
        <span>today</span>
      </div>
    </figure>
  )
}

export function DailyChart({ days }: { days: DayActivity[] }) {
  return (
    <section className="card" aria-labelledby="daily-activity">
      <h2 id="daily-activity">Last {days.length} days</h2>
      <div className={styles.charts}>
        <Bars days={days} series="sessions" name="Sessions recorded" />
        <Bars days={days} series="issues" name="Issues found" />
      </div>
    </section>
  )
}
