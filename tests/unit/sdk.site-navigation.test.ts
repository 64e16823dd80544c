import { describe, expect, it } from 'vitest'
import { watchSiteNavigation } from '@/sdk/src/site-navigation'

/** A window with just what the watcher reads: its origin and a Navigation API target. */
function fakeWindow(withNavigation = true) {
  const navigation = new EventTarget()
  const win = { location: { origin: 'https://shop.example' }, ...(withNavigation ? { navigation } : {}) }
  const navigate = (
    navigationType: string,
    url: string,
    extra: { sameDocument?: boolean; download?: string } = {},
  ) =>
    navigation.dispatchEvent(
      Object.assign(new Event('navigate'), {
        navigationType,
        destination: { url, sameDocument: extra.sameDocument ?? false },
        downloadRequest: extra.download ?? null,
      }),
    )
  return { win: win as unknown as Window, navigate }
}

describe('watchSiteNavigation', () => {
  it("continues the visit for the site's next page and a reload the page is told of", () => {
    const now = 0
    const { win, navigate } = fakeWindow()
    const watch = watchSiteNavigation(win, () => now)
    expect(watch.continuesHere()).toBe(false)
    navigate('push', 'https://shop.example/cart')
    expect(watch.continuesHere()).toBe(true)
    const again = fakeWindow()
    const reloading = watchSiteNavigation(again.win, () => now)
    again.navigate('reload', 'https://shop.example/cart')
    expect(reloading.continuesHere()).toBe(true)
  })

  it('ends the visit for another site, a download, an in-page change, or a navigation that never left', () => {
    let now = 0
    const { win, navigate } = fakeWindow()
    const watch = watchSiteNavigation(win, () => now)
    navigate('push', 'https://elsewhere.example/')
    expect(watch.continuesHere()).toBe(false)
    navigate('push', 'https://shop.example/invoice.pdf', { download: 'invoice.pdf' })
    expect(watch.continuesHere()).toBe(false)
    navigate('push', 'https://shop.example/#reviews', { sameDocument: true })
    expect(watch.continuesHere()).toBe(false)
    navigate('push', 'not a url')
    expect(watch.continuesHere()).toBe(false)
    // Started, then cancelled (a 204, a stopped load): the page is still here later.
    navigate('push', 'https://shop.example/cart')
    now += 10_000
    expect(watch.continuesHere()).toBe(false)
  })

  it('ends the visit on every last page left where the browser has no Navigation API', () => {
    const { win } = fakeWindow(false)
    const watch = watchSiteNavigation(win, () => 0)
    expect(watch.continuesHere()).toBe(false)
    watch.detach()
  })
})
