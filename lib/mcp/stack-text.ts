import type { SymbolicatedEvidence } from '@/lib/analysis/frames'
import { cutText } from '@/lib/analysis/trail'
import { minifiedFrameLine, originalFrameLine, UNMAPPED_REASON } from '@/lib/issues/evidence-frames'
import { stackOf } from '@/lib/issues/evidence-view'
import type { UntrustedMarkers } from './untrusted'

/**
 * get_issue's stack section: the original frames first (they name the code an agent can open),
 * each with its source line, then the stack as the browser recorded it. Frames, file names and
 * source lines come from a replay and a customer's source map, so each goes between the
 * result's markers; our labels stay outside. Bounded well inside the answer budget: at most
 * 20 frames, source lines for the first few, lines cut.
 */

const FRAME_CHARS = 200
const SOURCE_LINE_CHARS = 200
const FRAMES_WITH_SOURCE = 5
const RAW_STACK_CHARS = 1_500

export function issueStack(
  evidence: Record<string, unknown> | null,
  symbolicated: SymbolicatedEvidence | null,
  untrusted: UntrustedMarkers,
): string | null {
  const raw = stackOf(evidence?.stack)
  const sections: string[] = []
  if (symbolicated) {
    const release = symbolicated.release ? ` of release ${untrusted.wrap(symbolicated.release)}` : ''
    const lines = [`Stack in original source (through the source maps${release}), top first:`]
    symbolicated.frames.forEach((frame, i) => {
      if (frame.status === 'mapped' && frame.original) {
        lines.push(`  ${untrusted.wrap(cutText(originalFrameLine(frame.original), FRAME_CHARS))}`)
        const context = frame.original.context
        if (context && i < FRAMES_WITH_SOURCE)
          lines.push(
            `      ${frame.original.line} | ${untrusted.wrap(cutText(context.line.trim(), SOURCE_LINE_CHARS))}`,
          )
        return
      }
      const reason = frame.status === 'mapped' ? UNMAPPED_REASON.failed : UNMAPPED_REASON[frame.status]
      lines.push(
        `  ${untrusted.wrap(cutText(minifiedFrameLine(frame.minified), FRAME_CHARS))} (minified: ${reason})`,
      )
    })
    sections.push(lines.join('\n'))
  }
  if (raw.length > 0)
    sections.push(
      `${symbolicated ? 'Stack as recorded (minified)' : 'Stack'}:\n${untrusted.wrap(cutText(raw.join('\n'), RAW_STACK_CHARS))}`,
    )
  return sections.length > 0 ? sections.join('\n\n') : null
}
