import { TREND_DAYS } from '@/lib/issues/issue-trends'
import styles from './issues.module.css'

const WIDTH = 84
const HEIGHT = 22

/** Sessions per day over 14 days as a small line, with the figures for screen readers. */
export function Sparkline({ values }: { values: number[] }) {
  const total = values.reduce((sum, v) => sum + v, 0)
  const max = Math.max(1, ...values)
  const step = WIDTH / Math.max(1, values.length - 1)
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(HEIGHT - 2 - (v / max) * (HEIGHT - 4)).toFixed(1)}`)
    .join(' ')
  const label = `${total} ${total === 1 ? 'session' : 'sessions'} in the last ${TREND_DAYS} days; per day: ${values.join(', ')}`
  return (
    <span className={styles.trend} role="img" aria-label={label} title={label} data-testid="issue-trend">
      <svg width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} aria-hidden="true">
        <polyline
          points={points}
          fill="none"
          stroke={total > 0 ? 'currentColor' : 'var(--border)'}
          strokeWidth="1.5"
          strokeLinejoin="round"
        />
      </svg>
    </span>
  )
}
