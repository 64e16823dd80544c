import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFrontServer, MALFORMED_PATH } from '../../server/front.mjs'

let server: Server
let base: string
const handled: string[] = []

beforeAll(async () => {
  server = createFrontServer({
    handle: (req, res) => {
      handled.push(req.url ?? '')
      res.end('handled')
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('a path with a malformed percent-escape (server/front.mjs)', () => {
  it('answers 400 before Next sees it: JSON for the APIs, text for pages', async () => {
    const api = await fetch(`${base}/api/v1/issues/%zz`)
    expect(api.status).toBe(400)
    expect(api.headers.get('content-type')).toBe('application/json')
    expect(await api.json()).toEqual({ error: MALFORMED_PATH })

    const page = await fetch(`${base}/releases/1.0%E0%A4%A`)
    expect(page.status).toBe(400)
    expect(page.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await page.text()).toContain(MALFORMED_PATH)
    expect(handled).toEqual([])
  })

  it('passes every decodable address on, a malformed query string included (the route reads that)', async () => {
    for (const path of ['/releases/web%2F2026.11%20%235', '/issues?q=%zz', '/', '/api/v1/releases/3.2.0'])
      expect(await (await fetch(`${base}${path}`)).text()).toBe('handled')
    expect(handled).toEqual([
      '/releases/web%2F2026.11%20%235',
      '/issues?q=%zz',
      '/',
      '/api/v1/releases/3.2.0',
    ])
  })
})
