/**
 * js_error and console_error (docs/design/analysis.md §4.3). When the console plugin and our SDK both
 * report one uncaught error it counts once. A console.error is held for 1 s and merged into
 * an uncaught error with the same message, which frameworks often log next to it.
 */

import { boundedJson } from '../bounded-json'
import type { Context } from '../context'
import { ErrorFrameLog } from '../error-frames'
import { consoleErrorParts, jsErrorParts } from '../fingerprint'
import type { MinifiedFrame } from '../frames'
import { withoutMinifiedNames } from '../minified-names'
import { consoleArgText, decodeConsoleArg, normaliseMessage, splitErrorType, truncate } from '../normalize'
import {
  mappedFrame,
  originalFramePart,
  originalPlace,
  originalStack,
  symbolicatedFrames,
} from '../original-frames'
import type { Problem } from '../problem'
import { MAX_MATCH_CHARS } from '../reported-failures'
import type { Obj } from '../rrweb'
import { isExtensionFrame, normaliseFilePath, parsePositionedFrames, topInAppFrame } from '../stack'
import { consoleErrorTitle, elementPhrase, jsErrorTitle } from '../text'
import { isThirdParty } from '../url'
import { isScriptError, type RawError, readConsoleError, readSdkError } from './error-sources'

const MERGE_MS = 1000

/** What the console showed: every argument as text, joined, bounded before anyone matches it. */
function consoleSaid(text: string, args: unknown[]): string {
  let said = text.length > MAX_MATCH_CHARS ? text.slice(0, MAX_MATCH_CHARS) : text
  for (const arg of args.slice(1, 5)) {
    if (said.length >= MAX_MATCH_CHARS) break
    const shown =
      typeof arg === 'string'
        ? consoleArgText(arg.length > MAX_MATCH_CHARS ? arg.slice(0, MAX_MATCH_CHARS) : arg)
        : boundedJson(arg, MAX_MATCH_CHARS)
    said = `${said} ${shown}`.slice(0, MAX_MATCH_CHARS)
  }
  return said
}
const RESIZE_OBSERVER = /ResizeObserver loop/i
const MAX_PENDING = 50

/** How the error reached the page's handlers, as the trail names it. */
function trailSource(error: RawError): 'uncaught' | 'unhandled_rejection' | 'custom' {
  if (error.mechanism === 'onunhandledrejection') return 'unhandled_rejection'
  if (error.mechanism === 'onerror' || error.source === 'console') return 'uncaught'
  return 'custom'
}

interface Reported {
  key: string
  at: number
  source: 'console' | 'sdk'
  paired: boolean
}

export class ErrorDetector {
  private recent: Reported[] = []
  private pending: { key: string; problem: Problem; said: string }[] = []
  private readonly frameLog = new ErrorFrameLog()

  constructor(private readonly ctx: Context) {}

  get nextDeadline(): number {
    const first = this.pending[0]
    return first ? first.problem.at + MERGE_MS : Number.POSITIVE_INFINITY
  }

  consolePlugin(payload: Obj, at: number, seq: number): void {
    const entry = readConsoleError(payload)
    if (entry?.kind === 'uncaught') this.jsError(entry.error, at, seq)
    else if (entry) this.consoleError(entry.args, entry.text, entry.trace, at, seq)
  }

  customError(payload: Obj, at: number, seq: number): void {
    const entry = readSdkError(payload, at)
    if (entry) this.jsError(entry.error, entry.at, seq)
  }

  jsError(error: RawError, at: number, seq: number): void {
    if (RESIZE_OBSERVER.test(error.message) || error.frames.some(isExtensionFrame)) return
    const { type, message } = splitErrorType(error.message)
    const key = normaliseMessage(message)
    this.recent = this.recent.filter((entry) => at - entry.at <= MERGE_MS)
    const twin = this.recent.find(
      (entry) => !entry.paired && entry.source !== error.source && entry.key === key,
    )
    if (twin) {
      twin.paired = true
      return
    }
    if (this.recent.length < MAX_PENDING) this.recent.push({ key, at, source: error.source, paired: false })
    const { page, clicks, options } = this.ctx
    const top = topInAppFrame(error.frames, page.current.url)
    this.frameLog.add(error.frames, top)
    const symbolication = options.symbolication
    // Only the second pass, given original frames, does more than the first for an error.
    const frames = symbolication ? symbolicatedFrames(error.frames, symbolication) : []
    const mapped = frames.some((frame) => frame.status === 'mapped')
    this.ctx.trail.error(
      at,
      page.current.url,
      error.message,
      error.trace,
      trailSource(error),
      mapped ? originalStack(frames) : undefined,
    )
    this.pending = this.pending.filter((entry) => entry.key !== key || at - entry.problem.at > MERGE_MS)

    const click = clicks.before(at, MERGE_MS)
    if (click) click.errored = true
    const script = isScriptError(error.message)
    // The top in-app frame is chosen among the minified frames, as without maps; when it
    // mapped, the error is grouped by where it is in the source, which a rebuild keeps.
    const original = script ? null : mappedFrame(top, symbolication)
    const parts = script
      ? ['Script error.', page.current.pathPattern]
      : original
        ? [type, withoutMinifiedNames(key), originalFramePart(original)]
        : jsErrorParts(error.message, error.frames, page.current.url, page.current.pathPattern)
    const trigger = click ? { element: click.element, timestamp: click.at, url: click.page.url } : null
    const digestEntry = { message: truncate(error.message, 300), url: page.current.url, at }
    if (this.ctx.store.repeat('js_error', parts, { at, page: page.current, trigger })) {
      this.ctx.digest.add('errors', digestEntry)
      return
    }
    const where = original
      ? ` in ${originalPlace(original)}`
      : top
        ? ` in ${top.fn || '<anonymous>'} (${normaliseFilePath(top.url)})`
        : ''
    const after = click ? ` It followed a click on ${elementPhrase(click.element, click.stable)}.` : ''
    this.ctx.report({
      kind: 'js_error',
      parts,
      at,
      seq,
      page: page.current,
      trigger,
      evidence: {
        type,
        message,
        mechanism: error.mechanism,
        source: error.source,
        stack: error.trace.slice(0, 20),
        ...(symbolication && (mapped || original) ? { release: symbolication.release, frames } : {}),
      },
      title: jsErrorTitle(type, message, page.current.pathPattern, click?.element ?? null),
      failure: `${truncate(error.message, 160)} is thrown${original ? ` in ${originalPlace(original)}` : ''}`,
      summary: `Uncaught ${type} “${truncate(message, 200)}”${where} on ${page.current.pathPattern}.${after}`,
      priority: {
        base: script ? 'low' : 'high',
        paths: [page.current.pathPattern],
        thirdParty: top !== null && isThirdParty(top.url, page.current.url),
        fixed: script,
      },
    })
    this.ctx.digest.add('errors', digestEntry)
  }

  private consoleError(args: unknown[], text: string, trace: string[], at: number, seq: number): void {
    // Chromium reports the benign ResizeObserver loop through window.onerror without `Uncaught`.
    if (RESIZE_OBSERVER.test(text)) return
    const { message } = splitErrorType(text)
    const key = normaliseMessage(message)
    if (this.recent.some((entry) => entry.key === key && at - entry.at <= MERGE_MS)) return
    const first = decodeConsoleArg(args[0] ?? '')
    const identity =
      typeof first === 'string' || (first && typeof first === 'object' && 'message' in first)
        ? text
        : typeof first
    const { page, clicks } = this.ctx
    const click = clicks.before(at, MERGE_MS)
    const frames = parsePositionedFrames(trace)
    const top = frames[0] ?? null
    this.frameLog.add(frames, null)
    const symbolication = this.ctx.options.symbolication
    const shown = symbolication ? symbolicatedFrames(frames, symbolication) : []
    const problem: Problem = {
      kind: 'console_error',
      parts: consoleErrorParts(identity, page.current.pathPattern),
      at,
      seq,
      page: page.current,
      trigger: click ? { element: click.element, timestamp: click.at, url: click.page.url } : null,
      evidence: {
        message: text,
        arguments: args.slice(0, 5).map((arg) => truncate(String(arg), 500)),
        stack: trace.slice(0, 20),
        ...(symbolication && shown.some((frame) => frame.status === 'mapped')
          ? { release: symbolication.release, frames: shown }
          : {}),
      },
      title: consoleErrorTitle(text, page.current.pathPattern),
      failure: `console.error “${truncate(text, 160)}” is logged`,
      summary: `console.error “${truncate(text, 200)}” on ${page.current.pathPattern}.`,
      priority: {
        base: 'medium',
        paths: [page.current.pathPattern],
        thirdParty: top !== null && isThirdParty(top.url, page.current.url),
      },
    }
    if (this.pending.length >= MAX_PENDING) this.release(this.pending.shift()!)
    this.pending.push({ key, problem, said: consoleSaid(text, args) })
  }

  private release({ problem, said }: { problem: Problem; said: string }): void {
    // The page's own report of a failed request is that request's evidence, not a second issue.
    const failure = this.ctx.failures.reportedBy(said, { visit: problem.page.visit, at: problem.at })
    if (failure && this.ctx.store.reportedBy(failure, truncate(said, 300))) {
      this.ctx.digest.add('errors', { message: truncate(said, 300), url: problem.page.url, at: problem.at })
      return
    }
    if (this.ctx.report(problem)) {
      this.ctx.digest.add('errors', {
        message: truncate(String(problem.evidence.message), 300),
        url: problem.page.url,
        at: problem.at,
      })
    }
  }

  /** Console errors whose merge window has passed become findings. */
  flush(now: number): void {
    while (this.pending.length > 0 && now - this.pending[0]!.problem.at > MERGE_MS)
      this.release(this.pending.shift()!)
  }

  finish(): void {
    this.flush(Number.POSITIVE_INFINITY)
  }

  /** The positions the session's error stacks named (AnalysisResult.errorFrames). */
  errorFrames(): MinifiedFrame[] {
    return this.frameLog.result()
  }

  /** The distinct stacks those positions came from (AnalysisResult.errorStacks). */
  errorStacks(): MinifiedFrame[][] {
    return this.frameLog.stacksResult()
  }
}
