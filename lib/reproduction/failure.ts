/**
 * What "the bug" is, read from the issue's evidence (the detectors' shapes in
 * lib/analysis/detectors/*.ts): the error message to look for, the request that must answer
 * below 400, or the element whose click must get a response. Evidence is open JSON, so every
 * field is read defensively.
 */
import { MAX_LITERAL, withoutCutMarker } from './code'

export type Failure =
  | { kind: 'error'; console: boolean; message: string; label: string }
  | { kind: 'request'; method: string; url: string; path: string; status: number }
  | { kind: 'click'; rage: boolean; selector: string | null; text: string | null }

export interface ReproductionIssue {
  id: string
  kind: string
  title: string
  evidence: Record<string, unknown> | null
  stepsToReplicate: string | null
}

const str = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? withoutCutMarker(value) : null
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null

/** The path of a request URL as `new URL(url).pathname` gives it in the browser. */
export function pathOf(url: string, base?: string): string | null {
  try {
    return new URL(url.slice(0, 4096), base).pathname
  } catch {
    return null
  }
}

export function failureOf(issue: ReproductionIssue): Failure {
  const e = issue.evidence ?? {}
  switch (issue.kind) {
    case 'network_error': {
      const url = str(e.url) ?? ''
      return {
        kind: 'request',
        // An HTTP method is a token; anything else in it is not worth keeping.
        method:
          (str(e.method) ?? '')
            .toUpperCase()
            .replace(/[^A-Z]/g, '')
            .slice(0, 16) || 'GET',
        url,
        path: pathOf(url, str(e.pageUrl) ?? undefined) ?? '/',
        status: Math.trunc(num(e.status) ?? 0),
      }
    }
    case 'rage_click':
    case 'dead_click':
      return {
        kind: 'click',
        rage: issue.kind === 'rage_click',
        selector: str(e.selector),
        text: null,
      }
    default: {
      // js_error keeps the type apart (`TypeError`, `Cannot read …`); console_error the text.
      const message = str(e.message) ?? issue.title
      const type = issue.kind === 'js_error' ? str(e.type) : null
      return {
        kind: 'error',
        console: issue.kind === 'console_error',
        // The browser reports an uncaught error's message without its type: match on that.
        message: message.slice(0, MAX_LITERAL),
        label: type && !message.startsWith(type) ? `${type}: ${message}` : message,
      }
    }
  }
}
