import { createUser } from '@/lib/users/create-user'
import { setInstanceOperator } from '@/lib/users/operator'
import {
  type CliCommand,
  type CommandIo,
  type OptionValues,
  optionalString,
  requireString,
  UsageError,
} from '../command'

const USAGE =
  'user:create --email E (--password-stdin | --password P) --org ID [--role owner|member] [--name N]'

const PASSWORD_ARGUMENT_WARNING =
  'Warning: --password is visible in the process list and shell history; prefer --password-stdin.'

/** One trailing newline (`echo`, a here-string) is the shell's, not the password's; nothing else is trimmed. */
function withoutTrailingNewline(input: string): string {
  if (input.endsWith('\r\n')) return input.slice(0, -2)
  if (input.endsWith('\n')) return input.slice(0, -1)
  return input
}

/** Exactly one source: standard input (preferred) or the argument, which others can read. */
async function passwordFrom(values: OptionValues, io: CommandIo): Promise<string> {
  const fromArgument = values.password
  const fromStdin = values['password-stdin'] === true
  if (fromStdin && fromArgument !== undefined)
    throw new UsageError(`Give --password-stdin or --password, not both. Usage: ${USAGE}`)
  if (!fromStdin && fromArgument === undefined)
    throw new UsageError(`Missing --password-stdin (or --password). Usage: ${USAGE}`)
  if (fromStdin) {
    const password = withoutTrailingNewline(await io.readStdin())
    if (password === '') throw new UsageError('No password on standard input (--password-stdin).')
    return password
  }
  const password = requireString(values, 'password', USAGE)
  io.warn(PASSWORD_ARGUMENT_WARNING)
  return password
}

export const userCreate: CliCommand = {
  name: 'user:create',
  summary: 'Create a user in an organization',
  usage: USAGE,
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    org: { type: 'string' },
    role: { type: 'string' },
    name: { type: 'string' },
  },
  async run(db, values, io) {
    const email = requireString(values, 'email', USAGE)
    const organizationId = requireString(values, 'org', USAGE)
    const user = await createUser(db, {
      email,
      password: await passwordFrom(values, io),
      organizationId,
      role: optionalString(values, 'role'),
      name: optionalString(values, 'name'),
    })
    return {
      json: { ...user },
      text: `Created ${user.role} ${user.email} (id ${user.id}) in organization ${user.orgId}`,
    }
  },
}

export const userOperator: CliCommand = {
  name: 'user:operator',
  summary: 'Make a user the instance operator (may change plans in the dashboard), or --revoke it',
  usage: 'user:operator --email E [--revoke]',
  options: { email: { type: 'string' }, revoke: { type: 'boolean' } },
  async run(db, values) {
    const user = await setInstanceOperator(db, {
      email: requireString(values, 'email', this.usage),
      operator: values.revoke !== true,
    })
    return {
      json: { ...user },
      text: user.isOperator
        ? `${user.email} is now an instance operator`
        : `${user.email} is no longer an instance operator`,
    }
  },
}
