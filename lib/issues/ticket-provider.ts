/** Trackers recognised by their address, for prefilling the provider of a pasted ticket link. */
const HOSTS: [suffix: string, provider: string][] = [
  ['github.com', 'GitHub'],
  ['gitlab.com', 'GitLab'],
  ['linear.app', 'Linear'],
  ['atlassian.net', 'Jira'],
  ['shortcut.com', 'Shortcut'],
  ['app.asana.com', 'Asana'],
]

/** The tracker a ticket URL belongs to, or null when its address names none we know. */
export function providerOfTicketUrl(url: string): string | null {
  let host: string
  try {
    host = new URL(url.trim()).hostname.toLowerCase()
  } catch {
    return null
  }
  const match = HOSTS.find(([suffix]) => host === suffix || host.endsWith(`.${suffix}`))
  return match ? match[1] : null
}
