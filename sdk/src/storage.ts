/** The part of Web Storage the recorder uses; tests pass a Map-backed one. */
export interface KeyValueStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

export function memoryStore(): KeyValueStore {
  const map = new Map<string, string>()
  return {
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => {
      map.set(key, value)
    },
    removeItem: (key) => {
      map.delete(key)
    },
  }
}

/**
 * Web Storage that never throws: storage can be disabled (privacy modes, sandboxed iframes),
 * full, or throw on mere access; the recorder then keeps its state in memory for this page.
 */
export function safeStore(get: () => Storage | undefined): KeyValueStore {
  const fallback = memoryStore()
  let storage: Storage | undefined
  try {
    storage = get()
    if (storage) {
      const probe = '__svc_replay_probe__'
      storage.setItem(probe, '1')
      storage.removeItem(probe)
    }
  } catch {
    storage = undefined
  }
  if (!storage) return fallback
  const backing = storage
  return {
    getItem: (key) => {
      try {
        return backing.getItem(key) ?? fallback.getItem(key)
      } catch {
        return fallback.getItem(key)
      }
    },
    setItem: (key, value) => {
      try {
        backing.setItem(key, value)
        fallback.removeItem(key)
      } catch {
        fallback.setItem(key, value)
      }
    },
    removeItem: (key) => {
      fallback.removeItem(key)
      try {
        backing.removeItem(key)
      } catch {
        // Nothing to clean up in a storage we cannot reach.
      }
    },
  }
}

export function randomId(): string {
  const c = typeof crypto !== 'undefined' ? crypto : undefined
  if (c && typeof c.randomUUID === 'function') return c.randomUUID()
  // crypto.randomUUID needs a secure context; plain-http sites still have getRandomValues.
  const bytes = new Uint8Array(16)
  if (c && typeof c.getRandomValues === 'function') c.getRandomValues(bytes)
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256)
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
