import { AsyncLocalStorage } from 'node:async_hooks'

/** Event ids written inside the current commitWithEvents transaction, handed over after its commit. */
export const pendingEvents = new AsyncLocalStorage<string[]>()
