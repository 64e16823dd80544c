/** The bulk form's id: the table's row checkboxes join it through their `form` attribute. */
export const BULK_FORM_ID = 'bulk-resolve'

type Params = Record<string, string | string[] | undefined>

/** The issue list's state, exactly as the address holds it (validated by searchIssues). */
export interface IssueListState {
  status: string
  q: string
  priority: string
  kind: string
  url: string
  sort: string
  page: string
}

const KEYS = ['status', 'q', 'priority', 'kind', 'url', 'sort', 'page'] as const
/**
 * Values the address leaves out because they are what an empty one means: triage first, the
 * Unresolved tab in impact order (issue 34). Links from before that say `status=all` or
 * `sort=last_seen`, and keep meaning them because those are no longer left out.
 */
export const LIST_DEFAULTS = { status: 'unresolved', sort: 'impact', page: '1' } as const
const DEFAULTS: Partial<IssueListState> = LIST_DEFAULTS

export function readListState(params: Params): IssueListState {
  const one = (key: string) => {
    const value = params[key]
    return typeof value === 'string' ? value.trim() : ''
  }
  return {
    status: one('status') || LIST_DEFAULTS.status,
    q: one('q'),
    priority: one('priority'),
    kind: one('kind'),
    url: one('url'),
    sort: one('sort') || LIST_DEFAULTS.sort,
    page: one('page') || '1',
  }
}

/**
 * The list's address for a state; empty and default parts are left out, so a shared link
 * carries only what was chosen. Changing anything but the page goes back to page 1.
 */
export function issuesHref(state: Partial<IssueListState>): string {
  const params = new URLSearchParams()
  for (const key of KEYS) {
    const value = state[key]
    if (value && value !== DEFAULTS[key]) params.set(key, value)
  }
  const query = params.toString()
  return query ? `/issues?${query}` : '/issues'
}

/** Whether the address names parameters without a value (a submitted filter form does). */
export function hasEmptyParams(params: Params): boolean {
  return KEYS.some((key) => typeof params[key] === 'string' && (params[key] as string).trim() === '')
}
