import type { NetworkDetailPolicy } from '@/db/schema'
import {
  BODY_SECRET_WORDS,
  bodyRules,
  type HeaderRules,
  omissionReason,
  redactBody,
  redactHeaders,
  SecretNames,
} from '@/sdk/src/network-details/redact'
import { MAX_BODY_BYTES } from '@/sdk/src/options'

/** An organization's handling of captured network details, resolved with its ingest key. */
export interface NetworkPolicy {
  mode: NetworkDetailPolicy
  /** More key words, beside the built-in list. */
  redactKeys: string[]
}

/** What ingest does when no policy is known: the default of every organization. */
export const DEFAULT_NETWORK_POLICY: NetworkPolicy = { mode: 'redact', redactKeys: [] }

const PLUGIN_EVENT = 6
const NETWORK_PLUGIN = 'rrweb/network@1'
const HEADER_FIELDS = ['requestHeaders', 'responseHeaders'] as const
const BODY_FIELDS = ['requestBody', 'responseBody'] as const
const OMITTED_FIELDS = ['requestBodyOmitted', 'responseBodyOmitted'] as const
const DETAIL_FIELDS = [...HEADER_FIELDS, ...BODY_FIELDS, ...OMITTED_FIELDS]
const MAX_REDACT_KEYS = 100
/**
 * Characters of bodies redacted per batch. Redaction runs on the request thread and anyone
 * with the public ingest key can send a batch, so its cost is bounded per batch: bodies past
 * this are dropped with OVER_BUDGET as their omission reason.
 */
export const BATCH_DETAIL_BUDGET = 2 * 1024 * 1024
export const OVER_BUDGET = "over the batch's detail budget"
const BODY_SIDES = [
  ['requestBody', 'requestBodyOmitted', 'requestHeaders'],
  ['responseBody', 'responseBodyOmitted', 'responseHeaders'],
] as const

type Obj = Record<string, unknown>
const isObject = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const has = (target: Obj, key: string) => Object.hasOwn(target, key)

/** The requests of every network plugin event that carry at least one detail field. */
function requestsWithDetails(raw: unknown): Obj[] {
  const found: Obj[] = []
  if (!isObject(raw) || !isObject(raw.replay) || !Array.isArray(raw.replay.events)) return found
  for (const event of raw.replay.events) {
    if (!isObject(event) || event.type !== PLUGIN_EVENT || !isObject(event.data)) continue
    if (event.data.plugin !== NETWORK_PLUGIN || !isObject(event.data.payload)) continue
    const requests = event.data.payload.requests
    if (!Array.isArray(requests)) continue
    for (const request of requests) {
      if (isObject(request) && DETAIL_FIELDS.some((field) => has(request, field))) found.push(request)
    }
  }
  return found
}

interface Redactor {
  headers: HeaderRules
  body: ReturnType<typeof bodyRules>
  /** Body characters still allowed in this batch. */
  budget: number
}

function redactor(policy: NetworkPolicy): Redactor {
  const extra = policy.redactKeys
    .slice(0, MAX_REDACT_KEYS)
    .filter((k) => typeof k === 'string' && k.trim() !== '')
  return {
    headers: { allow: null, names: new SecretNames(BODY_SECRET_WORDS, extra) },
    body: bodyRules(extra, MAX_BODY_BYTES),
    budget: BATCH_DETAIL_BUDGET,
  }
}

/** Redacts one request's detail fields in place; whether anything changed. */
function redactRequest(request: Obj, rules: Redactor): boolean {
  let changed = false
  const remove = (field: string) => {
    delete request[field]
    changed = true
  }
  for (const field of HEADER_FIELDS) {
    if (!has(request, field)) continue
    const headers = request[field]
    if (!isObject(headers)) {
      remove(field)
      continue
    }
    const pairs: [string, string][] = []
    let malformed = false
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value === 'string') pairs.push([name, value])
      else malformed = true
    }
    const kept = redactHeaders(pairs, rules.headers)
    const keptNames = Object.keys(kept)
    if (
      malformed ||
      keptNames.length !== Object.keys(headers).length ||
      keptNames.some((name) => headers[name] !== kept[name])
    ) {
      request[field] = kept
      changed = true
    }
  }
  for (const [field, omittedField, headersField] of BODY_SIDES) {
    if (!has(request, field)) continue
    const body = request[field]
    if (typeof body !== 'string') {
      remove(field)
      continue
    }
    if (body.length > rules.budget) {
      delete request[field]
      request[omittedField] = OVER_BUDGET
      changed = true
      continue
    }
    rules.budget -= body.length
    const headers = request[headersField]
    const type = isObject(headers) ? headers['content-type'] : undefined
    const clean = redactBody(body, rules.body, undefined, typeof type === 'string' ? type : null)
    if (clean !== body) {
      request[field] = clean
      changed = true
    }
  }
  for (const field of OMITTED_FIELDS) {
    if (!has(request, field)) continue
    const reason = request[field]
    if (typeof reason !== 'string') remove(field)
    else {
      const allowed = omissionReason(reason)
      if (allowed !== reason) {
        request[field] = allowed
        changed = true
      }
    }
  }
  return changed
}

/**
 * Applies the organization's policy to the network details of a parsed batch, in place:
 * `redact` runs the recorder's redaction again (the built-in key words plus the
 * organization's, never-captured and secret-named headers dropped, bodies cut at
 * MAX_BODY_BYTES, at most BATCH_DETAIL_BUDGET body characters per batch, omission reasons
 * kept to the fixed set); `drop` removes every header and body field. Returns whether anything
 * changed: a batch without details costs one walk over its events' types and nothing else.
 * Deterministic, so a re-sent batch is stored the same.
 */
export function redactNetworkDetails(raw: unknown, policy: NetworkPolicy): boolean {
  const requests = requestsWithDetails(raw)
  if (requests.length === 0) return false
  if (policy.mode === 'drop') {
    for (const request of requests) for (const field of DETAIL_FIELDS) delete request[field]
    return true
  }
  const rules = redactor(policy)
  let changed = false
  for (const request of requests) if (redactRequest(request, rules)) changed = true
  return changed
}
