import type { IWindow } from '@rrweb/types'
import { describe, expect, it } from 'vitest'
import {
  type CapturedRequest,
  createNetworkPlugin,
  type DetailCapturer,
  type NetworkPayload,
  type RequestDetails,
} from '@/sdk/src/plugins/network'

type Listener = () => void

/** Just what the plugin touches of an XMLHttpRequest; `answer()` ends it as the browser would. */
class FakeXhr {
  status = 0
  statusText = ''
  private readonly listeners = new Map<string, Listener[]>()
  open(_method: string, _url: string): void {}
  send(_body?: unknown): void {}
  setRequestHeader(_name: string, _value: string): void {}
  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener])
  }
  answer(status: number): void {
    this.status = status
    this.statusText = 'OK'
    for (const listener of this.listeners.get('loadend') ?? []) listener()
  }
}

/** A window whose fetch answers only when the test says so. */
function fakeWindow() {
  const answers: ((response: Response) => void)[] = []
  const win = {
    location: { href: 'https://shop.example/checkout' },
    performance: { now: () => 0 },
    XMLHttpRequest: FakeXhr,
    fetch: (_input: RequestInfo | URL, _init?: RequestInit) =>
      new Promise<Response>((resolve) => {
        answers.push(resolve)
      }),
  }
  return { win, answer: (i: number) => answers[i]!(new Response('{}', { status: 200 })) }
}

/** `requests` is typed as rrweb's and ours at once; ours is what the plugin emits. */
const urlsOf = (payloads: NetworkPayload[]) =>
  payloads.flatMap((payload) => (payload.requests as CapturedRequest[]).map((r) => r.url))

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('the network plugin with a keep predicate', () => {
  it('records no request that started while not kept, however it ends, and asks its details of none', async () => {
    const { win, answer } = fakeWindow()
    let allowed = false
    const plugin = createNetworkPlugin({ win: win as unknown as Window, keep: () => allowed })
    const asked: string[] = []
    const capturer: DetailCapturer = {
      fetch: (url) => {
        asked.push(url)
        return { response: async (): Promise<RequestDetails> => ({ responseBody: 'secret' }) }
      },
      xhr: (url) => {
        asked.push(url)
        return { done: async (): Promise<RequestDetails> => ({ responseBody: 'secret' }) }
      },
    }
    plugin.setDetailCapturer(capturer)
    const emitted: NetworkPayload[] = []
    const pageWin = win as unknown as Window & { fetch: typeof fetch; XMLHttpRequest: typeof FakeXhr }

    // Started on the denied page: one before rrweb records, one while it does.
    const early = pageWin.fetch('/api/slow?from=denied-early')
    plugin.observer!(
      (payload) => emitted.push(payload as NetworkPayload),
      win as unknown as IWindow,
      plugin.options,
    )
    const late = pageWin.fetch('/api/slow?from=denied-late')
    const xhr = new pageWin.XMLHttpRequest()
    xhr.open('GET', '/api/slow?from=denied-xhr')
    xhr.send()
    // The page moves to an allowed address before they answer.
    allowed = true
    const kept = pageWin.fetch('/api/ok')
    answer(0)
    answer(1)
    answer(2)
    xhr.answer(200)
    // The page's own promises are untouched.
    expect((await early).status).toBe(200)
    expect((await late).status).toBe(200)
    expect((await kept).status).toBe(200)
    await settle()

    const urls = urlsOf(emitted)
    expect(urls).toEqual(['https://shop.example/api/ok'])
    expect(asked).toEqual(['https://shop.example/api/ok'])
    expect(emitted[0]!.requests[0]!.responseBody).toBe('secret')
  })

  it('keeps a request that started while kept, even if the answer comes after', async () => {
    const { win, answer } = fakeWindow()
    let allowed = true
    const plugin = createNetworkPlugin({ win: win as unknown as Window, keep: () => allowed })
    const emitted: NetworkPayload[] = []
    plugin.observer!(
      (payload) => emitted.push(payload as NetworkPayload),
      win as unknown as IWindow,
      plugin.options,
    )
    const pending = (win as unknown as Window).fetch('/api/cart')
    // What the recorder then does with it is its page gate's business at emit time.
    allowed = false
    answer(0)
    await pending
    await settle()
    expect(urlsOf(emitted)).toEqual(['https://shop.example/api/cart'])
  })
})
