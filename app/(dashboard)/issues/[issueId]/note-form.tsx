'use client'

import { useRef } from 'react'
import { NOTE_MAX_CHARACTERS } from '@/lib/issues/note-limits'
import { addNoteAction } from './actions'
import { ActionMessage, useIssueAction } from './use-issue-action'

export function NoteForm({ issueId }: { issueId: string }) {
  const form = useRef<HTMLFormElement>(null)
  const { result, pending, onSubmit } = useIssueAction(async (data) => {
    const outcome = await addNoteAction(issueId, null, data)
    // A saved note is in the history now; a refused one stays in the field to be corrected.
    if (outcome.ok) form.current?.reset()
    return outcome
  })
  return (
    <form ref={form} onSubmit={onSubmit} aria-label="Add a note">
      <ActionMessage result={result} />
      <div className="field">
        <label htmlFor="issue-note">Note</label>
        <textarea
          className="textarea"
          id="issue-note"
          name="text"
          required
          aria-describedby="issue-note-hint"
          placeholder="What you found, the cause, the fix…"
        />
        <span className="muted" id="issue-note-hint">
          Plain text, up to {NOTE_MAX_CHARACTERS.toLocaleString('en-US')} characters; shown in the history
          with your name.
        </span>
      </div>
      <button className="btn btn-accent" type="submit" disabled={pending}>
        {pending ? 'Adding…' : 'Add note'}
      </button>
    </form>
  )
}
