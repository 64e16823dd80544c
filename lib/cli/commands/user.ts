import { createUser } from '@/lib/users/create-user'
import { type CliCommand, optionalString, requireString } from '../command'

export const userCreate: CliCommand = {
  name: 'user:create',
  summary: 'Create a user in an organization',
  usage: 'user:create --email E --password P --org ID [--role owner|member] [--name N]',
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    org: { type: 'string' },
    role: { type: 'string' },
    name: { type: 'string' },
  },
  async run(db, values) {
    const user = await createUser(db, {
      email: requireString(values, 'email', this.usage),
      password: requireString(values, 'password', this.usage),
      organizationId: requireString(values, 'org', this.usage),
      role: optionalString(values, 'role'),
      name: optionalString(values, 'name'),
    })
    return {
      json: { ...user },
      text: `Created ${user.role} ${user.email} (id ${user.id}) in organization ${user.orgId}`,
    }
  },
}
