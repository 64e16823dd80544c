import type { ComponentProps } from 'react'
import Markdown, { type Components } from 'react-markdown'

/** Markdown headings sit below the page's own h1, so each level moves down one. */
const components: Components = {
  h1: ({ node: _node, ...props }) => <h2 {...props} />,
  h2: ({ node: _node, ...props }) => <h3 {...props} />,
  h3: ({ node: _node, ...props }) => <h4 {...props} />,
  h4: ({ node: _node, ...props }) => <h5 {...props} />,
  h5: ({ node: _node, ...props }) => <h6 {...props} />,
  a: ({ node: _node, href, ...props }: ComponentProps<'a'> & { node?: unknown }) => {
    // Links in generated text may point anywhere: off-site ones open apart from the
    // dashboard and get neither its window nor its address. Only a path of this site (one
    // leading slash, not `//host` or `/\host`, which browsers read as another host) stays.
    const external = !(href && /^\/(?![/\\])/.test(href))
    return external ? (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow" {...props} />
    ) : (
      <a href={href} {...props} />
    )
  },
}

/**
 * An insight's Markdown as React elements. Raw HTML is dropped (never parsed), images are not
 * loaded (they would call out to any host the text names), and react-markdown's default URL
 * filter removes `javascript:` and other unsafe links.
 */
export function InsightMarkdown({ content, className }: { content: string; className?: string }) {
  return (
    <div className={className} data-testid="insight-content">
      <Markdown skipHtml disallowedElements={['img']} unwrapDisallowed components={components}>
        {content}
      </Markdown>
    </div>
  )
}
