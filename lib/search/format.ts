import type { Condition, MomentNode, QueryNode, QueryValue } from './ast'
import { classifyWord, isWordChar } from './tokenize'

/**
 * The canonical text of a query: `parseQuery(formatQuery(q))` gives `q` back. Parentheses are
 * written only where the tree needs them (an `or` inside an `and`, a group inside a group of the
 * same kind, a group under `not`); a one-condition moment is written with a dot.
 */
export function formatQuery(node: QueryNode): string {
  switch (node.type) {
    case 'or':
      return node.children
        .map((child) => (child.type === 'or' ? `(${formatQuery(child)})` : formatQuery(child)))
        .join(' or ')
    case 'and':
      return node.children.map(grouped).join(' and ')
    case 'not':
      return `not ${grouped(node.child)}`
    case 'sequence': {
      const moments = node.moments.map(formatMoment).join(' then ')
      return node.withinRaw === null ? moments : `${moments} within ${node.withinRaw}`
    }
    case 'session':
      return formatCondition(node)
  }
}

function grouped(node: QueryNode): string {
  return node.type === 'and' || node.type === 'or' ? `(${formatQuery(node)})` : formatQuery(node)
}

function formatMoment(moment: MomentNode): string {
  const [only, ...more] = moment.conditions
  if (!only) return moment.kind
  if (more.length === 0) return `${moment.kind}.${formatCondition(only)}`
  return `${moment.kind}[${moment.conditions.map(formatCondition).join(' and ')}]`
}

function formatCondition(condition: Condition): string {
  return `${condition.field} ${condition.op} ${formatValue(condition.value)}`
}

const KEYWORDS = new Set(['and', 'or', 'not', 'then', 'within'])

/** A value as a bare word when it would read back as the same text, quoted otherwise. */
export function formatValue(value: QueryValue): string {
  if (value.type !== 'string') return value.raw
  const text = value.value
  const bare =
    text.length > 0 &&
    [...text].every(isWordChar) &&
    classifyWord(text).type === 'string' &&
    !KEYWORDS.has(text.toLowerCase())
  return bare ? text : `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}
