/**
 * Environment variables that stand in for values the recorder masked. The name says which
 * field it fills (REPRO_EMAIL, REPRO_PASSWORD...), so whoever runs the test knows what to set;
 * it is built from page text, so it is reduced to [A-Z0-9_] and bounded before it becomes code.
 */
import type { TrailTarget } from '@/lib/analysis/trail'
import { withoutCutMarker } from './code'

const MAX_FIELD_NAME = 32
const PREFIX = 'REPRO_'
/** Variables of the test itself, which no field may take (a field labelled "Base URL" included). */
const RESERVED = ['REPRO_BASE_URL']

function sanitise(text: string): string {
  let out = ''
  let underscore = false
  // Character by character: linear whatever the text, and bounded by the cap.
  for (const char of text.normalize('NFKD').toUpperCase()) {
    if (out.length >= MAX_FIELD_NAME) break
    if ((char >= 'A' && char <= 'Z') || (char >= '0' && char <= '9')) {
      out += char
      underscore = false
    } else if (!underscore && out !== '') {
      out += '_'
      underscore = true
    }
  }
  // The loop never writes two underscores in a row, so at most one trails.
  return out.endsWith('_') ? out.slice(0, -1) : out
}

/** The field's own name for itself: password fields are REPRO_PASSWORD whatever their label. */
function fieldName(target: TrailTarget): string {
  if (target.type?.toLowerCase() === 'password') return 'PASSWORD'
  for (const candidate of [target.name, target.id, target.testId, target.type]) {
    const name = candidate ? sanitise(withoutCutMarker(candidate)) : ''
    if (name !== '') return name
  }
  return 'FIELD'
}

/** Hands out one variable per field, the same one each time the field comes back. */
export class Placeholders {
  private readonly byField = new Map<string, string>()
  private readonly taken = new Set<string>(RESERVED)

  nameFor(target: TrailTarget): string {
    const key = `${target.selector}\u0000${target.name ?? ''}`
    const known = this.byField.get(key)
    if (known) return known
    const base = `${PREFIX}${fieldName(target)}`
    let name = base
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`
    this.byField.set(key, name)
    this.taken.add(name)
    return name
  }

  get names(): string[] {
    return [...this.byField.values()]
  }
}
