import type { ReactNode, Ref } from 'react'

/**
 * Preformatted text in a box that scrolls when it is long (steps, evidence, stacks, the
 * reproduction). A keyboard user must be able to scroll it too, so the box takes focus
 * (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function ScrollingText(props: {
  className?: string
  testId?: string
  ref?: Ref<HTMLPreElement>
  children: ReactNode
}) {
  return (
    <pre
      className={props.className}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box is operable by keyboard only when it takes focus
      tabIndex={0}
      data-testid={props.testId}
      ref={props.ref}
    >
      {props.children}
    </pre>
  )
}
