'use client'

import Link from 'next/link'
import { useActionState, useEffect, useState } from 'react'
import { SavedSearchOptions } from '@/app/(dashboard)/_components/saved-search-options'
import { type CreateSignalResult, createSignalAction } from './actions'
import { EXAMPLE_PROMPTS } from './examples'
import { SignalPreview } from './signal-preview'
import styles from './signals.module.css'

/**
 * The create form. Inputs are controlled so that a refused prompt stays in the form for the
 * user to fix (a form action would otherwise reset it); a created signal clears them.
 */
export function CreateSignalForm({
  aiConfigured,
  savedSearches,
}: {
  aiConfigured: boolean
  /** The organization's saved searches, for the optional filter (docs/saved-searches.md). */
  savedSearches: { id: string; name: string }[]
}) {
  const [state, action, pending] = useActionState<CreateSignalResult | null, FormData>(
    createSignalAction,
    null,
  )
  const [name, setName] = useState('')
  const [prompt, setPrompt] = useState('')
  const [savedSearchId, setSavedSearchId] = useState('')
  useEffect(() => {
    if (state?.ok) {
      setName('')
      setPrompt('')
      setSavedSearchId('')
    }
  }, [state])
  return (
    <form action={action} className={styles.createForm} aria-describedby="prompt-guidance">
      {state?.ok ? (
        <p className="alert alert-ok" role="status">
          {state.message} <Link href={`/signals/${state.signalId}`}>Open it</Link>
        </p>
      ) : null}
      {state && !state.ok ? (
        <p className="alert alert-error" role="alert" data-testid="create-signal-error">
          {state.error}
        </p>
      ) : null}
      <div className="field">
        <label htmlFor="signal-name">Name</label>
        <input
          className="input"
          id="signal-name"
          name="name"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-describedby="signal-name-hint"
        />
        <span className="muted" id="signal-name-hint">
          Up to 100 characters, shown in lists and webhooks.
        </span>
      </div>
      <div className="field">
        <label htmlFor="signal-prompt">Prompt</label>
        <textarea
          className="textarea"
          id="signal-prompt"
          name="prompt"
          required
          maxLength={2000}
          value={prompt}
          onChange={(e) => setPrompt(e.target.value)}
          aria-describedby="signal-prompt-hint prompt-guidance"
        />
        <span className="muted" id="signal-prompt-hint">
          Describe the sessions to find, in 3 to 2000 characters.
        </span>
      </div>
      <div className="field">
        <label htmlFor="signal-saved-search">Saved search</label>
        <select
          className="input"
          id="signal-saved-search"
          name="savedSearchId"
          value={savedSearchId}
          onChange={(e) => setSavedSearchId(e.target.value)}
          aria-describedby="signal-saved-search-hint"
        >
          <SavedSearchOptions savedSearches={savedSearches} />
        </select>
        <span className="muted" id="signal-saved-search-hint">
          Optional: only sessions this saved search finds can match the prompt.{' '}
          <Link href="/sessions/saved">Saved searches</Link>
        </span>
      </div>
      <SignalPreview prompt={prompt} aiConfigured={aiConfigured} />
      <div className={styles.examples}>
        <span className="muted">Examples that work with or without an AI model:</span>
        <ul>
          {EXAMPLE_PROMPTS.map((example) => (
            <li key={example.prompt}>
              <button
                className="btn btn-small"
                type="button"
                onClick={() => {
                  setName(example.name)
                  setPrompt(example.prompt)
                }}
                aria-label={`Use example: ${example.prompt}`}
              >
                <code>{example.prompt}</code>
              </button>
            </li>
          ))}
        </ul>
      </div>
      <details className={styles.guidance} id="prompt-guidance" open={!aiConfigured}>
        <summary>How prompts are matched</summary>
        {aiConfigured ? (
          <p>
            An AI model reads each new session’s digest (pages visited, clicks, errors, failed requests, rage
            and dead clicks, duration) and decides whether it fits your description, so plain sentences work.
            The scan of the last 30 days, and any session the model cannot judge, uses the keyword rules
            below.
          </p>
        ) : (
          <p>
            No AI model is configured on this server, so prompts are read by keyword rules. Write what you are
            looking for with these words:
          </p>
        )}
        <ul>
          <li>
            <strong>error</strong>, <strong>exception</strong>, <strong>crash</strong>: the session had a
            JavaScript error.
          </li>
          <li>
            <strong>failed</strong>, <strong>fail</strong>, <strong>500</strong>, <strong>network</strong>,{' '}
            <strong>request</strong>: a request failed.
          </li>
          <li>
            <strong>rage</strong>: a rage click. <strong>dead</strong>, <strong>unresponsive</strong>: a click
            that got no response.
          </li>
          <li>
            A path such as <code>/checkout</code> or <code>/api/pay</code>: the session visited that page or
            one below it, or a request to it failed.
          </li>
          <li>
            Any other word of 4 or more letters is a keyword, looked for in page URLs, clicked text, error
            messages and request URLs; one found keyword is enough.
          </li>
        </ul>
        <p>
          Every rule word and path in the prompt must hold. The rules do not understand negation, intent, the
          order of steps, counts or durations: <q>users who fail to pay</q> only finds sessions with a failed
          request (<q>pay</q> is too short to be a keyword).
        </p>
      </details>
      <button className={`btn btn-accent ${styles.submit}`} type="submit" disabled={pending}>
        {pending ? 'Creating…' : 'Create signal'}
      </button>
    </form>
  )
}
