'use client'

import { useActionState } from 'react'
import { ActionOutcome } from '@/app/_components/form'
import type { ActionResult } from '@/lib/http/actions'
import { saveMaskSettingsAction } from './actions'

export function MaskSettingsForm({ selectors, patterns }: { selectors: string[]; patterns: string[] }) {
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(saveMaskSettingsAction, null)
  return (
    <form action={action} aria-label="Mask settings">
      <div className="field">
        <label htmlFor="mask-selectors">Selectors (one a line)</label>
        <textarea
          className="input"
          id="mask-selectors"
          name="selectors"
          rows={4}
          defaultValue={selectors.join('\n')}
          placeholder={'.credit-card\nform#login input[name=otp]'}
        />
      </div>
      <div className="field">
        <label htmlFor="mask-patterns">Patterns (one a line)</label>
        <textarea
          className="input"
          id="mask-patterns"
          name="patterns"
          rows={4}
          defaultValue={patterns.join('\n')}
          placeholder={'@email\n@card-number\n~internal-token'}
        />
      </div>
      <button className="btn btn-primary" type="submit" disabled={pending}>
        {pending ? 'Saving…' : 'Save'}
      </button>
      <ActionOutcome state={state} />
    </form>
  )
}
