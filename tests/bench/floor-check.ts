import { type Floor, startFloor } from './harness/floor'

/**
 * By hand: `npx tsx tests/bench/floor-check.ts`. Starts the floor (building its Next app when
 * needed), sends each route once to both servers, checks the answers, stops. Not in the test
 * suite: it builds and starts Next, which is a benchmark's business.
 */

interface Check {
  method: string
  path: string
  body?: string
  contentType?: string
  status: number
  /** The answer's body must pass this. */
  valid: (text: string) => boolean
}

const checks: Check[] = [
  {
    method: 'POST',
    path: '/floor/json',
    body: JSON.stringify({ events: [{ type: 2, data: 'x'.repeat(1000) }] }),
    contentType: 'application/json',
    status: 200,
    valid: (text) => text === '{"ok":true}',
  },
  {
    method: 'POST',
    path: '/floor/json',
    body: '{not json',
    contentType: 'application/json',
    status: 400,
    valid: (text) => text.includes('invalid json'),
  },
  {
    method: 'GET',
    path: '/floor/json?bytes=4096',
    status: 200,
    valid: (text) => Array.isArray(JSON.parse(text)) && text.length >= 4096 && text.length < 4096 + 300,
  },
  {
    method: 'POST',
    path: '/floor/form',
    body: 'grant_type=refresh_token&refresh_token=abc&client_id=c1',
    contentType: 'application/x-www-form-urlencoded',
    status: 200,
    valid: (text) => {
      const answer = JSON.parse(text) as { ok: boolean; fields: number }
      return answer.ok && answer.fields === 3 && text.length > 800 && text.length < 1400
    },
  },
  { method: 'OPTIONS', path: '/floor/json', status: 204, valid: (text) => text === '' },
  { method: 'OPTIONS', path: '/floor/form', status: 204, valid: (text) => text === '' },
]

let floor: Floor | undefined
const failures: string[] = []
try {
  floor = await startFloor()
  const answers = new Map<Check, string>()
  for (const [name, server] of [
    ['next-floor', floor.next],
    ['bare', floor.bare],
  ] as const)
    for (const check of checks) {
      const response = await fetch(`${server.baseUrl}${check.path}`, {
        method: check.method,
        body: check.body,
        headers: check.contentType ? { 'content-type': check.contentType } : {},
      })
      const text = await response.text()
      const label = `${name} ${check.method} ${check.path}`
      let valid = false
      try {
        valid = check.valid(text)
      } catch {
        // not JSON: invalid
      }
      if (response.status !== check.status || !valid)
        failures.push(`${label}: ${response.status} ${text.slice(0, 200)}`)
      // Both must send the same bytes, or the floor would compare different work.
      if (answers.has(check) && answers.get(check) !== text)
        failures.push(`${label}: differs from next-floor's`)
      answers.set(check, text)
      console.log(`${label}: ${response.status}, ${text.length} bytes`)
    }
} finally {
  await floor?.stop()
}
if (failures.length > 0) {
  console.error(`FAILED:\n${failures.join('\n')}`)
  process.exitCode = 1
} else console.log('floor: both servers answer every route as expected')
