import { ISSUE_KINDS, type IssueKind, issueKindLabel } from '@/lib/issues/kinds'
import styles from './issues.module.css'

/** One 16 px path per kind; anything else (a kind added later) gets a plain dot. */
const PATHS: Record<IssueKind, string> = {
  // A warning triangle.
  js_error: 'M8 1.5 15 14H1L8 1.5Zm0 4v4.5m0 1.5v1.5',
  // A terminal prompt.
  console_error: 'M1.5 2.5h13v11h-13zM4 6l2.5 2L4 10m4 0h4',
  // A broken link: two arrows that do not meet.
  network_error: 'M2 8h4m4 0h4M11 5l3 3-3 3M5 5 2 8l3 3',
  // A pointer with burst lines.
  rage_click: 'M6 6l7 3-3 1-1 3zM3 3l1.5 1.5M6 1v2M1 6h2',
  // A pointer and an empty circle: nothing happened.
  dead_click: 'M6 6l7 3-3 1-1 3zM3.5 1.5a2 2 0 1 0 .01 0',
}

export function KindIcon({ kind }: { kind: string }) {
  const label = issueKindLabel(kind)
  const path = (ISSUE_KINDS as readonly string[]).includes(kind)
    ? PATHS[kind as IssueKind]
    : 'M8 6a2 2 0 1 0 .01 0'
  return (
    <span
      className={`${styles.kind} ${styles[`kind_${kind}`] ?? ''}`}
      role="img"
      aria-label={label}
      title={label}
    >
      <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
        <path
          d={path}
          fill="none"
          stroke="currentColor"
          strokeWidth="1.5"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
    </span>
  )
}
