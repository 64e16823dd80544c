// The answers of the floor routes, shared by the minimal Next app and the bare Node server so
// both send the same bytes. Plain JavaScript: the Next app is built on its own, without our
// tsconfig, and the harness imports it through payload.d.ts.

const cache = new Map()

/**
 * A JSON array of issue-like objects, about `bytes` long (at least one item), built once per
 * size: the floor measures answering, not building the answer.
 */
export function floorJson(bytes) {
  const wanted = Math.max(0, Math.min(Number.isFinite(bytes) ? Math.floor(bytes) : 0, 10_000_000))
  let json = cache.get(wanted)
  if (json !== undefined) return json
  const items = []
  let length = 2
  for (let i = 0; i === 0 || length < wanted; i++) {
    const item = JSON.stringify({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      title: `Floor item ${i}: a title of ordinary length`,
      status: i % 3 === 0 ? 'open' : 'resolved',
      events: i * 7,
      lastSeenAt: '2026-11-25T00:00:00.000Z',
    })
    items.push(item)
    length += item.length + 1
  }
  json = `[${items.join(',')}]`
  cache.set(wanted, json)
  return json
}

/** The answer to a form POST: about 1 KB, as a token endpoint's answer is. */
export function floorFormAnswer(fields) {
  return `{"ok":true,"fields":${fields},"data":${floorJson(960)}}`
}
