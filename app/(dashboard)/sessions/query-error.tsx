import styles from './sessions.module.css'

/**
 * A query's parse error with where it is: the message, the character (counted from 1, as a
 * person counts) and the text with that character marked, so a long query shows the spot.
 */
export function QueryError({ text, error, position }: { text: string; error: string; position: number }) {
  const at = Math.min(Math.max(0, position), text.length)
  return (
    <>
      <span data-testid="query-error-message">
        {error} (at character {at + 1})
      </span>
      <code className={styles.queryText} aria-hidden="true">
        {text.slice(0, at)}
        <mark className={styles.errorMark}>{text[at] ?? ' '}</mark>
        {text.slice(at + 1)}
      </code>
    </>
  )
}
