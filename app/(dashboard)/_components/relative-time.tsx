'use client'

import { useEffect, useState } from 'react'
import { exactTime, relativeTime } from './time-format'

/** How often a shown relative time is brought up to date while the page stays open. */
const REFRESH_MS = 30_000

/**
 * The dashboard's one way of showing a moment: relative ("3 min ago"), the exact UTC time on
 * hover and for machines. The first render uses the server's clock (`now`) on both sides, so
 * hydration matches; the browser's clock takes over after mount and keeps the text current.
 */
export function RelativeTime({
  date,
  now,
  empty = 'never',
}: {
  date: Date | string | null
  now: number
  empty?: string
}) {
  const [clock, setClock] = useState(now)
  useEffect(() => {
    setClock(Date.now())
    const timer = setInterval(() => setClock(Date.now()), REFRESH_MS)
    return () => clearInterval(timer)
  }, [])
  if (date === null) return <span className="muted">{empty}</span>
  const at = typeof date === 'string' ? new Date(date) : date
  if (Number.isNaN(at.getTime())) return <span className="muted">{empty}</span>
  return (
    <time dateTime={at.toISOString()} title={exactTime(at)}>
      {relativeTime(at, clock)}
    </time>
  )
}
