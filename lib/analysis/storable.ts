/**
 * Postgres refuses NUL in text and both NUL and an unpaired UTF-16 surrogate in jsonb. Every
 * string analysis keeps came from a page (or from whoever holds the public ingest key), so one
 * such character in an error message or a server's answer would fail the write of the whole
 * session's issues. They are replaced by U+FFFD instead, as a text column would for a surrogate.
 */

/** `text` with NUL and unpaired surrogates replaced by U+FFFD; the same string when it has none. */
export function storableText(text: string): string {
  let out: string | null = null
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    let bad = code === 0
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        if (out !== null) out += text[i]! + text[i + 1]!
        i++
        continue
      }
      bad = true
    } else if (code >= 0xdc00 && code <= 0xdfff) bad = true
    if (bad && out === null) out = text.slice(0, i)
    if (out !== null) out += bad ? '\uFFFD' : text[i]!
  }
  return out ?? text
}

type Container = Record<string, unknown> | unknown[]

/**
 * Makes every string (values and keys) of a plain JSON-like value storable, in place, and
 * returns it. Iterative: analysis output is bounded in size but nests (evidence, digests).
 */
export function makeStorable<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T
  if (typeof value !== 'object' || value === null) return value
  const pending: Container[] = [value as Container]
  const seen = new Set<object>()
  for (let container = pending.pop(); container !== undefined; container = pending.pop()) {
    if (seen.has(container)) continue
    seen.add(container)
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const item = container[i]
        if (typeof item === 'string') container[i] = storableText(item)
        else if (typeof item === 'object' && item !== null) pending.push(item as Container)
      }
      continue
    }
    for (const key of Object.keys(container)) {
      const item = container[key]
      const cleanKey = storableText(key)
      const cleanItem = typeof item === 'string' ? storableText(item) : item
      if (cleanKey !== key) {
        delete container[key]
        container[cleanKey] = cleanItem
      } else if (cleanItem !== item) container[key] = cleanItem
      if (typeof item === 'object' && item !== null) pending.push(item as Container)
    }
  }
  return value
}
