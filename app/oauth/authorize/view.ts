import type { ConsentView } from '@/lib/oauth/start-authorization'

/**
 * The authorize pages as plain HTML from a route handler: a route handler can answer 302
 * and 303 and set its own headers, which a page cannot (its redirect() is 307). Every value
 * from a client's registration or request goes through `escapeHtml`.
 */
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (ch) => ENTITIES[ch]!)

const SCOPE_TEXT: Record<string, string> = {
  'read:service': 'Read your organization’s issues, signals and insights',
  'write:issues': 'Change the status of issues',
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;background:#f5f6f8;color:#1d2330;margin:0}
main{max-width:28rem;margin:8vh auto;background:#fff;border:1px solid #dde1e7;border-radius:10px;padding:2rem}
h1{font-size:1.3rem;margin:0 0 1rem}ul{padding-left:1.2rem}.muted{color:#5b6475;font-size:.9rem}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{font:inherit;padding:.55rem 1.1rem;border-radius:6px;
border:1px solid #c5cbd6;background:#fff;cursor:pointer}button.primary{background:#1f5eff;color:#fff;border-color:#1f5eff}
label{display:block;margin:.4rem 0}select{font:inherit;padding:.3rem}`

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · Session Replay Issues</title>
<style>${STYLE}</style></head><body><main>${body}</main></body></html>`
}

/** One message for every fault: nothing tells a prober which check failed. */
export function errorPage(): string {
  return layout(
    'Authorization failed',
    `<h1>Authorization failed</h1><p>This authorization request is invalid or has expired. Return to the
application and try connecting again.</p>`,
  )
}

/** Answer to a background fetch (Next's router after sign-in): it then navigates for real. */
export function continuePage(href: string): string {
  return layout(
    'Continue',
    `<h1>Continue</h1><p><a href="${escapeHtml(href)}">Continue to authorization</a></p>`,
  )
}

export function consentPage(view: ConsentView): string {
  const name = escapeHtml(view.clientName)
  const read = view.scopes.filter((s) => s !== 'write:issues')
  const items = read.map(
    (s) => `<li>${escapeHtml(SCOPE_TEXT[s] ?? s)} <span class="muted">(${escapeHtml(s)})</span></li>`,
  )
  const write = view.scopes.includes('write:issues')
    ? `<label><input type="checkbox" name="write_issues" value="1" checked> ${escapeHtml(SCOPE_TEXT['write:issues']!)}
<span class="muted">(write:issues)</span></label>`
    : ''
  const orgs =
    view.organizations.length === 1
      ? `<p>Organization: <strong>${escapeHtml(view.organizations[0]!.name)}</strong></p>
<input type="hidden" name="organization_id" value="${escapeHtml(view.organizations[0]!.id)}">`
      : `<label>Organization <select name="organization_id" required>${view.organizations
          .map((o) => `<option value="${escapeHtml(o.id)}">${escapeHtml(o.name)}</option>`)
          .join('')}</select></label>`
  const hidden = [...view.fields, ['csrf_token', view.csrfToken]]
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k!)}" value="${escapeHtml(v!)}">`)
    .join('')
  return layout(
    `Connect ${view.clientName}`,
    `<h1>Connect <span data-testid="client-name">${name}</span>?</h1>
<p><strong>${name}</strong> wants access to Session Replay Issues. After you approve, you will be sent to
<strong data-testid="redirect-host">${escapeHtml(view.redirectHost)}</strong>.</p>
<form method="post" action="/oauth/authorize">${hidden}<p>It will be able to:</p><ul>${items.join('')}</ul>${write}${orgs}
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></div></form>
<p class="muted">Only approve applications you trust. You can disconnect it later under Connected apps.</p>`,
  )
}
