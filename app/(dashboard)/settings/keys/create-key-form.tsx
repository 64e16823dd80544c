'use client'

import { useActionState } from 'react'
import { CopyField } from '../_components/copy-field'
import styles from '../_components/settings.module.css'
import { type CreateKeyResult, createKeyAction } from './actions'

/** Creates an ingest or Data API key and shows it once, with what to do with it next. */
export function CreateKeyForm({ type, disabled }: { type: 'ingest' | 'api'; disabled: boolean }) {
  const [state, action, pending] = useActionState<CreateKeyResult | null, FormData>(createKeyAction, null)
  const prefix = type === 'ingest' ? 'ingest' : 'api'
  return (
    <>
      <form action={action} aria-label={type === 'ingest' ? 'Create an ingest key' : 'Create a Data API key'}>
        <input type="hidden" name="type" value={type} />
        <div className="inline-form">
          <div className={`field ${styles.fieldGrow}`}>
            <label htmlFor={`${prefix}-key-name`}>Key name</label>
            <input
              className="input"
              id={`${prefix}-key-name`}
              name="name"
              required
              maxLength={64}
              placeholder={type === 'ingest' ? 'Marketing site' : 'Triage script'}
              disabled={disabled}
            />
          </div>
          <button className="btn btn-accent" type="submit" disabled={disabled || pending}>
            {pending ? 'Creating…' : type === 'ingest' ? 'Create ingest key' : 'Create Data API key'}
          </button>
        </div>
        {type === 'api' ? (
          <div className={styles.checkbox}>
            <input
              type="checkbox"
              id="api-key-write"
              name="allowStatusUpdates"
              aria-describedby="api-key-write-hint"
              disabled={disabled}
            />
            <label htmlFor="api-key-write">
              Allow issue status updates
              <br />
              <span className="muted" id="api-key-write-hint">
                Adds the <code>write:issues</code> scope (PATCH <code>/api/v1/issues/…</code>, MCP{' '}
                <code>update_issue</code>). Without it the key can only read.
              </span>
            </label>
          </div>
        ) : null}
        {type === 'api' ? (
          <div className={styles.checkbox}>
            <input
              type="checkbox"
              id="api-key-sourcemaps"
              name="allowSourcemapUploads"
              aria-describedby="api-key-sourcemaps-hint"
              disabled={disabled}
            />
            <label htmlFor="api-key-sourcemaps">
              Allow source map uploads
              <br />
              <span className="muted" id="api-key-sourcemaps-hint">
                An upload-only key for CI: the <code>write:sourcemaps</code> scope alone (POST{' '}
                <code>/api/v1/sourcemaps</code>), so a leaked build secret cannot read anything.
              </span>
            </label>
          </div>
        ) : null}
        {type === 'api' ? (
          <div className={styles.checkbox}>
            <input
              type="checkbox"
              id="api-key-verifications"
              name="allowReproductionResults"
              aria-describedby="api-key-verifications-hint"
              disabled={disabled}
            />
            <label htmlFor="api-key-verifications">
              Allow reproduction results
              <br />
              <span className="muted" id="api-key-verifications-hint">
                An upload-only key for CI: the <code>write:verifications</code> scope (POST{' '}
                <code>/api/v1/issues/…/verifications</code>, what the reproduction bundle&apos;s reporter
                sends). It may also upload source maps; it cannot read anything.
              </span>
            </label>
          </div>
        ) : null}
        {type === 'api' ? (
          <div className={styles.checkbox}>
            <input
              type="checkbox"
              id="api-key-privacy"
              name="allowPrivacyRequests"
              aria-describedby="api-key-privacy-hint"
              disabled={disabled}
            />
            <label htmlFor="api-key-privacy">
              Allow privacy requests (erasure, export, re-masking, audit)
              <br />
              <span className="muted" id="api-key-privacy-hint">
                Adds the <code>write:privacy</code> scope (<code>/api/v1/erasures</code> and the other privacy
                endpoints): the key can erase and export the data of the people your site records. Owners
                only.
              </span>
            </label>
          </div>
        ) : null}
      </form>
      {state && !state.ok ? (
        <p className="alert alert-error" role="alert">
          {state.error}
        </p>
      ) : null}
      {state?.ok ? (
        <div className={`alert alert-ok ${styles.created}`} role="status" data-testid={`created-${type}-key`}>
          <p>
            Created the key <strong>{state.name}</strong> ({state.scopes.length === 1 ? 'scope' : 'scopes'}:{' '}
            {state.scopes.join(' and ')}). Copy it now: it is shown only this once and cannot be recovered
            (create a new one if you lose it).
          </p>
          <CopyField label="Key" value={state.key} testId={`new-${type}-key`} />
          <CopyField
            label={type === 'ingest' ? 'Recorder snippet (first tag in <head>)' : 'Try it'}
            value={state.example}
            multiline
            testId={`new-${type}-example`}
          />
        </div>
      ) : null}
    </>
  )
}
