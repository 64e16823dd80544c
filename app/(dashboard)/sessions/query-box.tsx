'use client'

import { type FormEvent, useId, useMemo, useRef, useState } from 'react'
import type { MomentKind } from '@/lib/search/ast'
import { SEARCH_LIMITS } from '@/lib/search/ast'
import { parseQuery } from '@/lib/search/parse'
import {
  type BuilderCondition,
  type BuilderQuery,
  type BuilderRow,
  type BuilderStep,
  builderToText,
  emptyCondition,
  emptyRow,
  emptyStep,
  fieldsFor,
  KIND_NAMES,
  operatorsOf,
  ROW_KINDS,
  type RowKind,
  SESSION_TARGET,
  textToBuilder,
} from './query-builder'
import { QueryError } from './query-error'
import styles from './sessions.module.css'

type Mode = 'text' | 'builder'
type Problem = { error: string; position: number } | null

const MOMENT_KIND_LIST = ROW_KINDS.filter((kind): kind is MomentKind => kind !== SESSION_TARGET)

function problemOf(text: string): Problem {
  if (text.trim() === '') return null
  const parsed = parseQuery(text)
  return parsed.ok ? null : { error: parsed.error, position: parsed.position }
}

/**
 * The query box of the sessions page (docs/dashboard.md#searching-sessions): the query as text,
 * or built from rows; both write the same `q`, and switching keeps the query. The form is a
 * plain GET to /sessions, so a search is a link; the other filters ride along as hidden fields.
 */
export function QueryBox({ initialText, keep }: { initialText: string; keep: Record<string, string> }) {
  const id = useId()
  const [mode, setMode] = useState<Mode>('text')
  const [text, setText] = useState(initialText)
  const [builder, setBuilder] = useState<BuilderQuery>({ join: 'and', rows: [] })
  // Errors show once the query is submitted or left, then follow every keystroke until fixed.
  const [checking, setChecking] = useState(initialText.trim() !== '')
  const [notice, setNotice] = useState('')
  const input = useRef<HTMLInputElement>(null)

  const query = mode === 'text' ? text : builderToText(builder)
  const problem = useMemo(() => problemOf(query), [query])
  const shown = checking || mode === 'builder' ? problem : null

  function toBuilder() {
    const result = textToBuilder(text)
    if (result.ok) {
      setBuilder(result.builder.rows.length ? result.builder : { join: 'and', rows: [emptyRow()] })
      setNotice('')
      setMode('builder')
    } else if (result.reason === 'invalid') {
      setChecking(true)
      setNotice('Fix the query before opening the builder.')
    } else {
      setNotice('This query nests “and” inside “or” (or the other way round): the builder cannot show it.')
    }
  }

  function toText() {
    setText(builderToText(builder))
    setNotice('')
    setMode('text')
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    if (!problem) return
    event.preventDefault()
    setChecking(true)
    const field = input.current
    if (mode !== 'text' || !field) return
    // After the click that sent the form is done with focus (the button keeps it otherwise).
    window.setTimeout(() => {
      field.focus()
      field.setSelectionRange(problem.position, problem.position)
    }, 0)
  }

  const updateRow = (index: number, row: BuilderRow) =>
    setBuilder((current) => ({ ...current, rows: current.rows.map((old, at) => (at === index ? row : old)) }))

  return (
    <form
      className={`card ${styles.queryBox}`}
      action="/sessions"
      onSubmit={submit}
      aria-labelledby={`${id}-title`}
    >
      <div className={styles.queryHead}>
        <span className={styles.queryTitle} id={`${id}-title`}>
          What happened in the session
        </span>
        <fieldset className={styles.modes}>
          <legend className="visually-hidden">Query form</legend>
          <button
            type="button"
            className="btn btn-small"
            aria-pressed={mode === 'text'}
            onClick={() => mode !== 'text' && toText()}
          >
            Text
          </button>
          <button
            type="button"
            className="btn btn-small"
            aria-pressed={mode === 'builder'}
            onClick={() => mode !== 'builder' && toBuilder()}
          >
            Builder
          </button>
        </fieldset>
      </div>

      {mode === 'text' ? (
        <div className={`field ${styles.search}`}>
          <label htmlFor={`${id}-q`}>Query</label>
          <input
            ref={input}
            className="input"
            id={`${id}-q`}
            name="q"
            type="text"
            value={text}
            onChange={(event) => setText(event.target.value)}
            onBlur={() => setChecking(text.trim() !== '')}
            maxLength={SEARCH_LIMITS.text}
            spellCheck={false}
            autoComplete="off"
            placeholder="click.text = Pay then error within 60s"
            aria-invalid={shown ? true : undefined}
            aria-describedby={`${id}-problem ${id}-help`}
          />
          <span className="muted" id={`${id}-help`}>
            Moments (click, page, request, error…) and session fields, with and, or, not, then … within.
          </span>
        </div>
      ) : (
        <Builder id={id} builder={builder} setBuilder={setBuilder} updateRow={updateRow} query={query} />
      )}

      <p className={styles.queryProblem} id={`${id}-problem`} role="status" aria-live="polite">
        {shown ? <QueryError text={query} error={shown.error} position={shown.position} /> : notice}
      </p>

      {mode === 'builder' ? <input type="hidden" name="q" value={query} /> : null}
      {Object.entries(keep).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <div className="toolbar">
        <button className="btn btn-accent" type="submit">
          Find sessions
        </button>
      </div>
    </form>
  )
}

interface BuilderProps {
  id: string
  builder: BuilderQuery
  setBuilder: (update: (current: BuilderQuery) => BuilderQuery) => void
  updateRow: (index: number, row: BuilderRow) => void
  query: string
}

function Builder({ id, builder, setBuilder, updateRow, query }: BuilderProps) {
  return (
    <div className={styles.builder}>
      <div className="field">
        <label htmlFor={`${id}-join`}>Sessions where</label>
        <select
          className="select"
          id={`${id}-join`}
          value={builder.join}
          onChange={(event) =>
            setBuilder((current) => ({ ...current, join: event.target.value === 'or' ? 'or' : 'and' }))
          }
        >
          <option value="and">all rows match</option>
          <option value="or">any row matches</option>
        </select>
      </div>
      {builder.rows.map((row, index) => (
        <RowEditor
          // biome-ignore lint/suspicious/noArrayIndexKey: controlled fields, each shows its row's state whatever its key
          key={index}
          id={`${id}-r${index}`}
          index={index}
          row={row}
          onChange={(next) => updateRow(index, next)}
          onRemove={() =>
            setBuilder((current) => ({ ...current, rows: current.rows.filter((_, at) => at !== index) }))
          }
        />
      ))}
      <div className="toolbar">
        <button
          type="button"
          className="btn btn-small"
          onClick={() => setBuilder((current) => ({ ...current, rows: [...current.rows, emptyRow()] }))}
        >
          Add row
        </button>
      </div>
      <p className="muted">
        Query text: <code data-testid="builder-text">{query || '(empty: every session)'}</code>
      </p>
    </div>
  )
}

function RowEditor({
  id,
  index,
  row,
  onChange,
  onRemove,
}: {
  id: string
  index: number
  row: BuilderRow
  onChange: (row: BuilderRow) => void
  onRemove: () => void
}) {
  const kind: RowKind = row.target === 'session' ? SESSION_TARGET : (row.steps[0]?.kind ?? 'click')
  return (
    <fieldset className={styles.row}>
      <legend>Row {index + 1}</legend>
      <div className={styles.rowLine}>
        <label className={styles.check}>
          <input
            type="checkbox"
            checked={row.not}
            onChange={(event) => onChange({ ...row, not: event.target.checked })}
          />{' '}
          Not
        </label>
        <KindSelect
          id={`${id}-kind`}
          label="Kind"
          kinds={ROW_KINDS}
          value={kind}
          onChange={(next) =>
            onChange(
              next === SESSION_TARGET
                ? { ...emptyRow(next), not: row.not }
                : row.target === 'moment'
                  ? { ...row, steps: [emptyStep(next), ...row.steps.slice(1)] }
                  : { ...emptyRow(next), not: row.not },
            )
          }
        />
        {row.target === 'session' ? (
          <ConditionEditor
            id={`${id}-c`}
            kind={SESSION_TARGET}
            condition={row.condition}
            onChange={(condition) => onChange({ ...row, condition })}
          />
        ) : null}
        <button type="button" className="btn btn-small" onClick={onRemove}>
          Remove row {index + 1}
        </button>
      </div>
      {row.target === 'moment' ? (
        <>
          {row.steps.map((step, at) => (
            <StepEditor
              // biome-ignore lint/suspicious/noArrayIndexKey: controlled fields, as above
              key={at}
              id={`${id}-s${at}`}
              position={at}
              step={step}
              onChange={(next) =>
                onChange({ ...row, steps: row.steps.map((old, i) => (i === at ? next : old)) })
              }
              onRemove={() => onChange({ ...row, steps: row.steps.filter((_, i) => i !== at) })}
            />
          ))}
          <div className={styles.rowLine}>
            {row.steps.length < SEARCH_LIMITS.sequence ? (
              <button
                type="button"
                className="btn btn-small"
                onClick={() => onChange({ ...row, steps: [...row.steps, emptyStep('error')] })}
              >
                Add “then” moment
              </button>
            ) : null}
            {row.steps.length > 1 ? (
              <div className="field">
                <label htmlFor={`${id}-within`}>Within</label>
                <input
                  className="input"
                  id={`${id}-within`}
                  value={row.within}
                  onChange={(event) => onChange({ ...row, within: event.target.value })}
                  placeholder="60s"
                  size={6}
                  maxLength={12}
                />
              </div>
            ) : null}
          </div>
        </>
      ) : null}
    </fieldset>
  )
}

function StepEditor({
  id,
  position,
  step,
  onChange,
  onRemove,
}: {
  id: string
  position: number
  step: BuilderStep
  onChange: (step: BuilderStep) => void
  onRemove: () => void
}) {
  const setCondition = (at: number, condition: BuilderCondition) =>
    onChange({ ...step, conditions: step.conditions.map((old, i) => (i === at ? condition : old)) })
  return (
    <div className={styles.step}>
      {position > 0 ? (
        <div className={styles.rowLine}>
          <KindSelect
            id={`${id}-kind`}
            label={`Then (moment ${position + 1})`}
            kinds={MOMENT_KIND_LIST}
            value={step.kind}
            onChange={(kind) => onChange(emptyStep(kind as MomentKind))}
          />
          <button type="button" className="btn btn-small" onClick={onRemove}>
            Remove moment {position + 1}
          </button>
        </div>
      ) : null}
      {step.conditions.map((condition, at) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: controlled fields, as above
        <div className={styles.rowLine} key={at}>
          <ConditionEditor
            id={`${id}-c${at}`}
            kind={step.kind}
            condition={condition}
            onChange={(next) => setCondition(at, next)}
          />
          <button
            type="button"
            className="btn btn-small"
            onClick={() => onChange({ ...step, conditions: step.conditions.filter((_, i) => i !== at) })}
          >
            Remove condition
          </button>
        </div>
      ))}
      <button
        type="button"
        className="btn btn-small"
        onClick={() => onChange({ ...step, conditions: [...step.conditions, emptyCondition(step.kind)] })}
      >
        Add condition to moment {position + 1}
      </button>
    </div>
  )
}

function KindSelect({
  id,
  label,
  kinds,
  value,
  onChange,
}: {
  id: string
  label: string
  kinds: readonly RowKind[]
  value: RowKind
  onChange: (kind: RowKind) => void
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        className="select"
        id={id}
        value={value}
        onChange={(event) => onChange(kinds.find((kind) => kind === event.target.value) ?? value)}
      >
        {kinds.map((kind) => (
          <option key={kind} value={kind}>
            {KIND_NAMES[kind]}
          </option>
        ))}
      </select>
    </div>
  )
}

function ConditionEditor({
  id,
  kind,
  condition,
  onChange,
}: {
  id: string
  kind: RowKind
  condition: BuilderCondition
  onChange: (condition: BuilderCondition) => void
}) {
  const operators = operatorsOf(kind, condition.field)
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-field`}>Field</label>
        <input
          className="input"
          id={`${id}-field`}
          list={`${id}-fields`}
          value={condition.field}
          onChange={(event) => onChange({ ...condition, field: event.target.value })}
          size={12}
          spellCheck={false}
          autoComplete="off"
        />
        <datalist id={`${id}-fields`}>
          {fieldsFor(kind).map((field) => (
            <option key={field} value={field} />
          ))}
        </datalist>
      </div>
      <div className="field">
        <label htmlFor={`${id}-op`}>Operator</label>
        <select
          className="select"
          id={`${id}-op`}
          value={condition.op}
          onChange={(event) =>
            onChange({
              ...condition,
              op: operators.find((op) => op === event.target.value) ?? condition.op,
            })
          }
        >
          {(operators.includes(condition.op) ? operators : [condition.op, ...operators]).map((op) => (
            <option key={op} value={op}>
              {op}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-value`}>Value</label>
        <input
          className="input"
          id={`${id}-value`}
          value={condition.value}
          onChange={(event) => onChange({ ...condition, value: event.target.value })}
          size={14}
          spellCheck={false}
          autoComplete="off"
        />
      </div>
    </>
  )
}
