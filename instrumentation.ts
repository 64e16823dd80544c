// Next's start-up hook: runs once per server process, before the first request.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return
  const { startService } = await import('./inngest/startup')
  await startService()
}
