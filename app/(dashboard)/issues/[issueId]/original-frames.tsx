import type { SourceContext, SymbolicatedEvidence, SymbolicatedFrame } from '@/lib/analysis/frames'
import { minifiedFrameLine, UNMAPPED_REASON } from '@/lib/issues/evidence-frames'
import styles from '../issues.module.css'
import { ScrollingText } from './scrolling-text'

/** The source lines around a frame, numbered, with the frame's own line marked. */
function Context({ context, line }: { context: SourceContext; line: number }) {
  const first = line - context.pre.length
  const rows = [...context.pre, context.line, ...context.post]
  return (
    <ScrollingText className={styles.sourceContext} testId="frame-context">
      {rows.map((text, i) => {
        const number = first + i
        const current = number === line
        return (
          <span
            // biome-ignore lint/suspicious/noArrayIndexKey: source lines are a fixed, ordered text
            key={i}
            className={current ? styles.sourceLineCurrent : styles.sourceLine}
            aria-current={current ? 'true' : undefined}
          >
            <span className={styles.lineNumber}>{number}</span>
            {text}
            {'\n'}
          </span>
        )
      })}
    </ScrollingText>
  )
}

function Frame({ frame }: { frame: SymbolicatedFrame }) {
  const minified = <code>{minifiedFrameLine(frame.minified)}</code>
  if (frame.status !== 'mapped' || !frame.original) {
    return (
      <li className={styles.frame} data-testid="frame" data-status={frame.status}>
        {minified}{' '}
        <span className="badge" data-testid="frame-unmapped">
          {frame.status === 'mapped' ? UNMAPPED_REASON.failed : UNMAPPED_REASON[frame.status]}
        </span>
      </li>
    )
  }
  const { original } = frame
  return (
    <li className={styles.frame} data-testid="frame" data-status="mapped">
      <p className={styles.frameHeading}>
        <strong>{original.fn ?? '(anonymous)'}</strong>{' '}
        <code>
          {original.source}:{original.line}:{original.column}
        </code>
      </p>
      {original.context ? <Context context={original.context} line={original.line} /> : null}
      <details>
        <summary>Minified frame</summary>
        {minified}
      </details>
    </li>
  )
}

/** The stack in original frames, top first, each with its minified frame on demand. */
export function OriginalFrames({ evidence }: { evidence: SymbolicatedEvidence }) {
  return (
    <div data-testid="original-frames">
      <p className="muted">
        Original source through the source maps of release{' '}
        <code data-testid="frames-release">{evidence.release || 'unknown'}</code>.
      </p>
      <ol className={styles.frames}>
        {evidence.frames.map((frame, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: frames are a fixed, ordered stack
          <Frame key={i} frame={frame} />
        ))}
      </ol>
    </div>
  )
}
