import type { SessionDigest } from '@/lib/analysis/types'

/**
 * The matcher used without a language model. It reads a signal's prompt for a few things it
 * can check for certain in a session digest, and for the remaining words as keywords:
 *
 * - friction words: "error"/"exception"/"crash" → the session has a JavaScript error;
 *   "rage" → a rage click; "dead"/"unresponsive" → a dead click; "fail"/"failed"/"500"/
 *   "network"/"request" → a failed request;
 * - paths: a word starting with `/` (e.g. `/checkout`, `/api/pay`) → the session visited a
 *   page at or below it, or a request at or below it failed ("failed request on /api/pay");
 * - every other word of 4+ letters (not a common word) is a keyword, found in page URLs,
 *   clicked element text, error messages and request URLs.
 *
 * A session matches when every friction word and path holds and, if the prompt has keywords,
 * at least one is found. It cannot understand negation, intent or sequence ("users who gave
 * up after…"), counts, durations, or anything not in the digest; configure AI_* for that.
 */
const STOPWORDS = new Set(
  'the and for that with this from have were they them their what when where which while who whom whose will would could should about after before into onto over under again then than there here some such only also just very more most much many other users user session sessions page pages click clicks clicked people someone anyone trying tried want wants wanted show shows find finds that this these those does did done make made being been your yours button buttons link links element elements form forms field fields site website visit visits visited visitor visitors customer customers using used hits gets seen something anything everything'.split(
    ' ',
  ),
)

export type Condition = 'error' | 'rage' | 'dead' | 'network'

const CONDITION_WORDS: Record<string, Condition> = {
  error: 'error',
  errors: 'error',
  exception: 'error',
  exceptions: 'error',
  crash: 'error',
  crashes: 'error',
  rage: 'rage',
  dead: 'dead',
  unresponsive: 'dead',
  fail: 'network',
  fails: 'network',
  failed: 'network',
  failing: 'network',
  failure: 'network',
  '500': 'network',
  network: 'network',
  request: 'network',
  requests: 'network',
}

export interface ParsedPrompt {
  conditions: Condition[]
  paths: string[]
  keywords: string[]
}

export function parsePrompt(prompt: string): ParsedPrompt {
  const conditions = new Set<Condition>()
  const paths = new Set<string>()
  const keywords = new Set<string>()
  for (const raw of prompt.toLowerCase().split(/[\s,.;:!?"'()]+/)) {
    if (!raw) continue
    if (raw.startsWith('/') && raw.length > 1) {
      paths.add(raw.replace(/(?<!\/)\/+$/, ''))
      continue
    }
    const condition = CONDITION_WORDS[raw]
    if (condition) conditions.add(condition)
    else if (/^[\p{L}\p{N}_-]{4,}$/u.test(raw) && !STOPWORDS.has(raw)) keywords.add(raw)
  }
  return { conditions: [...conditions], paths: [...paths], keywords: [...keywords] }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname.toLowerCase()
  } catch {
    return url.toLowerCase()
  }
}

function atOrBelow(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`)
}

export interface DeterministicMatch {
  matched: boolean
  evidence: { conditions: Condition[]; paths: string[]; keywords: string[] }
}

export function matchDigest(prompt: ParsedPrompt, digest: SessionDigest): DeterministicMatch {
  const has: Record<Condition, boolean> = {
    error: digest.errors.length > 0,
    rage: digest.rageClicks.length > 0,
    dead: digest.deadClicks.length > 0,
    network: digest.networkFailures.length > 0,
  }
  // A path names a page or an endpoint: failed requests count as much as visited pages.
  const seen = [
    ...digest.pages.map((p) => pathOf(p.url)),
    ...digest.networkFailures.map((n) => pathOf(n.url)),
  ]
  const conditionsHold = prompt.conditions.every((c) => has[c])
  const pathsHold = prompt.paths.every((path) => seen.some((v) => atOrBelow(v, path)))
  const haystack = [
    ...digest.pages.map((p) => p.url),
    ...digest.clicks.map((c) => `${c.text} ${c.selector}`),
    ...digest.errors.map((e) => e.message),
    ...digest.networkFailures.map((n) => `${n.method} ${n.url}`),
    ...digest.rageClicks.map((c) => c.text),
    ...digest.deadClicks.map((c) => c.text),
  ]
    .join('\n')
    .toLowerCase()
  const keywords = prompt.keywords.filter((k) => haystack.includes(k))
  const anySignal = prompt.conditions.length + prompt.paths.length + prompt.keywords.length > 0
  const keywordsHold = prompt.keywords.length === 0 || keywords.length > 0
  return {
    matched: anySignal && conditionsHold && pathsHold && keywordsHold,
    evidence: { conditions: prompt.conditions, paths: prompt.paths, keywords },
  }
}
