'use client'

import { useState, useTransition } from 'react'
import { type ActionResult, deleteRuleAction, pauseRuleAction } from './actions'

export function RuleActions({ ruleId, name, paused }: { ruleId: string; name: string; paused: boolean }) {
  const [pending, start] = useTransition()
  const [result, setResult] = useState<ActionResult | null>(null)
  return (
    <>
      <button
        className="btn"
        type="button"
        disabled={pending}
        onClick={() => start(async () => setResult(await pauseRuleAction(ruleId, !paused)))}
      >
        {paused ? 'Resume' : 'Pause'}
      </button>
      <button
        className="btn"
        type="button"
        disabled={pending}
        onClick={() =>
          start(async () => {
            if (!window.confirm(`Delete ${name} and its history?`)) return
            setResult(await deleteRuleAction(ruleId))
          })
        }
      >
        Delete
      </button>
      {result ? (
        <span className="muted" role={result.ok ? 'status' : 'alert'}>
          {result.ok ? result.message : result.error}
        </span>
      ) : null}
    </>
  )
}
