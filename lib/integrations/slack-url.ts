/**
 * Slack incoming-webhook URLs are secrets that post to a channel; the service only ever sends
 * to Slack's own hosts (`SLACK_WEBHOOK_HOSTS`), over https, so a stored URL cannot be turned
 * into a request to anything else. Returns the reason a URL is refused, or null.
 */
export function slackWebhookUrlProblem(value: string, allowedHosts: readonly string[]): string | null {
  if (value.length > 512) return 'The Slack webhook URL is too long.'
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'Enter the incoming-webhook URL Slack gave you (https://hooks.slack.com/services/…).'
  }
  const isLoopbackTest =
    url.protocol === 'http:' && allowedHosts.includes(url.host) && url.hostname === '127.0.0.1'
  if (url.protocol !== 'https:' && !isLoopbackTest) return 'The Slack webhook URL must start with https://.'
  if (url.username || url.password) return 'The Slack webhook URL must not carry a user name or password.'
  if (!allowedHosts.includes(url.host)) return `Slack webhook URLs are on ${allowedHosts.join(', ')}.`
  return null
}
