// The app's Inngest client, built from configuration on first use (never at import, so the
// build and an in-process deployment need no Inngest keys).
export { getInngestClient, INNGEST_APP_ID } from '@/lib/jobs/inngest'
