/**
 * network_error (docs/design/analysis.md §1.9, §4.3): requests from our `rrweb/network@1` plugin that got
 * a 5xx, a 429, or no response at all. A request without response is held for 500 ms and
 * dropped when the page is left in that time (the browser aborted it). 401/403/404 and other
 * 4xx are expected application answers, not issues.
 */
import {
  boundedStr,
  clip,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
  MAX_SHORT_TEXT_CHARS,
  MAX_URL_CHARS,
} from '../bounds'
import type { Context } from '../context'
import { fingerprint, networkParts } from '../fingerprint'
import { truncate } from '../normalize'
import { networkBase } from '../priority'
import type { Problem } from '../problem'
import { arr, isObj, num, type Obj } from '../rrweb'
import { serverMessage } from '../server-message'
import { networkOutcome, networkTitle } from '../text'
import { displayUrl, pathPattern, siteOf, splitRequestUrl } from '../url'

const UNLOAD_MS = 500
// Analytics and tag hosts fail often and are not the product's problem.
const IGNORED_HOSTS =
  /(?:^|\.)(?:google-analytics\.com|googletagmanager\.com|doubleclick\.net|segment\.io|hotjar\.com|sentry\.io|posthog\.com|mixpanel\.com|amplitude\.com|clarity\.ms|facebook\.com|intercom\.io)$/i

/** A failed request and the path the page asked for, which a console message may name. */
interface Failed {
  problem: Problem
  path: string
  answeredAt: number
}

export class NetworkDetector {
  private pending: Failed[] = []

  constructor(private readonly ctx: Context) {}

  get nextDeadline(): number {
    const first = this.pending[0]
    return first ? first.problem.at + UNLOAD_MS : Number.POSITIVE_INFINITY
  }

  plugin(payload: Obj, at: number, seq: number): void {
    const initial = payload.isInitial === true
    for (const request of arr(payload.requests)) if (isObj(request)) this.request(request, initial, at, seq)
  }

  private request(request: Obj, initial: boolean, at: number, seq: number): void {
    const { page, store, options } = this.ctx
    const rawUrl = boundedStr(request.url, MAX_URL_CHARS) ?? boundedStr(request.name, MAX_URL_CHARS)
    const status = num(request.status) ?? num(request.responseStatus)
    if (!rawUrl) return
    this.trail(request, rawUrl, status, at)
    if (status === null) return
    const ok = status >= 200 && status < 400
    // Successes matter only to findings that wait for one; most requests stop here unparsed.
    if (ok ? !store.hasSuccessKeys : status < 500 && status !== 429 && status !== 0) return
    const method = (boundedStr(request.method, MAX_NAME_CHARS) ?? 'GET').toUpperCase()
    const split = splitRequestUrl(rawUrl, page.current.url)
    // Resolving percent-encodes, which can make a bounded URL longer again.
    const url = clip(split.href, MAX_URL_CHARS)
    const { host, path } = split
    const pattern = pathPattern(path)
    const key = `${method} ${host}${pattern}`
    if (ok) {
      store.success(key, page.current.visit)
      return
    }
    if (options.ignoreRequestUrls?.some((prefix) => url.startsWith(prefix))) return
    if (IGNORED_HOSTS.test(host)) return
    const initiator = boundedStr(request.initiatorType, MAX_NAME_CHARS)
    const error = boundedStr(request.error, MAX_MESSAGE_CHARS)
    if (status === 0) {
      // Resource timing reports 0 for any cross-origin asset; only fetch/XHR failures are known.
      if (initiator && initiator !== 'fetch' && initiator !== 'xmlhttprequest') return
      // The page cancelled it on purpose (AbortController), so nobody waited for an answer.
      if (error && /abort/i.test(error)) return
    }
    const startedAt = num(request.timestamp) ?? at - (num(request.duration) ?? 0)
    const click = initial ? null : this.ctx.clicks.startedRequest(startedAt, at)
    const parts = networkParts(method, host, pattern, status)
    const trigger = click ? { element: click.element, timestamp: click.at, url: click.page.url } : null
    // The moment the answer came, which a page's own log of it follows (reported-failures.ts).
    const duration = num(request.duration)
    const answeredAt =
      duration !== null && duration >= 0 && startedAt + duration <= at ? startedAt + duration : at
    if (status !== 0 && store.repeat('network_error', parts, { at, page: page.current, trigger })) {
      this.noteFailure(parts, status, path, answeredAt, page.current.visit)
      this.ctx.digest.add('networkFailures', { method, url: displayUrl(url), status, at })
      return
    }
    const pageHost = page.current.host
    const endpoint = host && host !== pageHost ? `${host}${pattern}` : pattern
    const outcome = networkOutcome(status)
    // Read only here, for a failure about to be reported: repeats and successes never parse a body.
    // The message stays out of the parts and the title, so issues do not split by message.
    const message = status === 0 ? null : serverMessage(request.responseBody)
    const said = message ? ` The server answered: “${message}”.` : ''
    const problem: Problem = {
      kind: 'network_error',
      parts,
      at,
      seq,
      page: page.current,
      trigger,
      evidence: {
        method,
        url: displayUrl(url),
        status,
        statusText: boundedStr(request.statusText, MAX_SHORT_TEXT_CHARS) ?? '',
        error,
        initiatorType: initiator,
        startedAt,
        durationMs: num(request.duration),
        isInitial: initial || request.isInitial === true,
        ...(message ? { serverMessage: message } : {}),
      },
      title: networkTitle(method, endpoint, status, page.current.pathPattern),
      failure: `${method} ${endpoint} ${outcome}`,
      summary: `${method} ${truncate(displayUrl(url), 200)} ${outcome}${error ? ` (${truncate(error, 120)})` : ''} on ${page.current.pathPattern}.${said}`,
      priority: {
        base: networkBase(status, method, click !== null),
        paths: [page.current.pathPattern, pattern],
        thirdParty: pageHost !== '' && host !== '' && siteOf(host) !== siteOf(pageHost),
      },
      successKey: key,
    }
    if (status === 0) this.pending.push({ problem, path, answeredAt })
    else this.report({ problem, path, answeredAt })
  }

  /** Every request goes into the session trail, except the service's own ingest requests. */
  private trail(request: Obj, rawUrl: string, status: number | null, at: number): void {
    const { page, options, trail } = this.ctx
    if (trail.full()) return
    // Resolving percent-encodes, which can make a bounded URL longer again.
    const url = clip(splitRequestUrl(rawUrl, page.current.url).href, MAX_URL_CHARS)
    if (options.ignoreRequestUrls?.some((prefix) => url.startsWith(prefix))) return
    // 0 is what fetch and XHR report when no answer came (network error, CORS, abort).
    const answered = status !== null && status !== 0 ? status : null
    trail.request(at, page.current.url, {
      method: (boundedStr(request.method, MAX_NAME_CHARS) ?? 'GET').toUpperCase(),
      url: displayUrl(url),
      status: answered,
      durationMs: num(request.duration),
      failed: answered === null || answered >= 400,
    })
  }

  private noteFailure(
    parts: string[],
    status: number,
    path: string,
    answeredAt: number,
    visit: number,
  ): void {
    this.ctx.failures.note({
      id: fingerprint('network_error', parts),
      visit,
      at: answeredAt,
      status,
      path,
    })
  }

  private report({ problem, path, answeredAt }: Failed): void {
    if (!this.ctx.report(problem)) return
    this.noteFailure(problem.parts, problem.evidence.status as number, path, answeredAt, problem.page.visit)
    const evidence = problem.evidence as { method: string; url: string; status: number }
    this.ctx.digest.add('networkFailures', {
      method: evidence.method,
      url: evidence.url,
      status: evidence.status,
      at: problem.at,
    })
  }

  /** The page was left: requests that failed just before were aborted by leaving. */
  pageLeft(at: number): void {
    this.flush(at)
    this.pending = this.pending.filter((failed) => at - failed.problem.at > UNLOAD_MS)
  }

  flush(now: number): void {
    while (this.pending.length > 0 && now - this.pending[0]!.problem.at > UNLOAD_MS)
      this.report(this.pending.shift()!)
  }

  /** A failure in the last 500 ms of the session is most likely the tab closing. */
  finish(end: number): void {
    this.flush(end)
    this.pending = []
  }
}
