import { getInngestClient } from '@/inngest/client'
import { getInngestFunctions } from '@/inngest/functions'
import { getConfig } from '@/lib/config'
import { createInngestRoute } from '@/lib/http/inngest-route'

// Decided per request: with jobs in-process this answers 404 JSON (see createInngestRoute)
// instead of exposing functions the in-process runner already executes.
export const { GET, POST, PUT } = createInngestRoute(() =>
  getConfig().jobs.kind === 'inngest'
    ? { client: getInngestClient(), functions: getInngestFunctions() }
    : null,
)
