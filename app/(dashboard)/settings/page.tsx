import type { Metadata } from 'next'
import { When } from '@/app/(dashboard)/_components/when'
import { PLANS } from '@/db/schema'
import { getDb } from '@/lib/db'
import { requireMember } from '@/lib/http/session'
import { listPendingInvitations } from '@/lib/members/list-invitations'
import { listMembers } from '@/lib/members/members'
import { getNetworkPolicy } from '@/lib/orgs/network-policy'
import { ConfirmButton } from './_components/confirm-button'
import { InviteForm } from './_components/invite-form'
import { NetworkPolicyForm } from './_components/network-policy-form'
import { PlanForm } from './_components/plan-form'
import { RenameForm } from './_components/rename-form'
import styles from './_components/settings.module.css'
import { changeMemberRoleAction, removeMemberAction, revokeInvitationAction } from './actions'

export const metadata: Metadata = { title: 'Organization settings' }

export default async function OrganizationSettingsPage() {
  const { user, organization } = await requireMember('/settings')
  const db = await getDb()
  const isOwner = organization.role === 'owner'
  const [members, invitations, networkPolicy] = await Promise.all([
    listMembers(db, organization.id),
    listPendingInvitations(db, organization.id),
    getNetworkPolicy(db, organization.id),
  ])
  // The last owner cannot leave (the server refuses); offering the button would only fail.
  const soleOwner = isOwner && members.filter((m) => m.role === 'owner').length === 1
  return (
    <>
      <section>
        <h1>Organization</h1>
        <p className="muted">Your organization's name, the people in it and who may change its settings.</p>
      </section>
      {!isOwner ? (
        <p className="alert alert-info" data-testid="read-only-note">
          You are a member: you can see these settings, but only owners can rename the organization, change
          roles, remove members and invite people. Ask an owner if something needs to change.
        </p>
      ) : null}

      <section className="card" aria-labelledby="organization-heading">
        <h2 id="organization-heading">Details</h2>
        <dl className="facts">
          <dt>Name</dt>
          <dd data-testid="organization-name">{organization.name}</dd>
          <dt>Organization id</dt>
          <dd>
            <code data-testid="organization-id">{organization.id}</code>
          </dd>
          <dt>Plan</dt>
          <dd>
            <span className="badge" data-testid="organization-plan">
              {organization.plan}
            </span>
          </dd>
          <dt>Your role</dt>
          <dd data-testid="your-role">{organization.role}</dd>
        </dl>
        <div className={styles.formBlock}>
          <RenameForm name={organization.name} disabled={!isOwner} />
          {!isOwner ? <p className="muted">Only owners can rename the organization.</p> : null}
        </div>
        <div className={styles.formBlock}>
          {user.isOperator ? (
            <PlanForm plan={organization.plan} plans={PLANS} />
          ) : (
            <p className="muted" data-testid="plan-note">
              The plan is changed by whoever runs this installation (an instance operator): here, when signed
              in as one, or with <code>npm run admin -- org:plan --org {organization.id} --plan paid</code>.
            </p>
          )}
        </div>
      </section>

      <section className="card" aria-labelledby="network-details-heading">
        <h2 id="network-details-heading">Network details</h2>
        <p className="muted">
          Recorders set up to capture request and response headers and bodies for some URLs send them
          redacted; here you choose what ingest does with them. Dropping keeps only each request's method,
          URL, status and timing. See <code>docs/network-details.md</code>.
        </p>
        {!isOwner ? <p className="muted">Only owners can change the network details policy.</p> : null}
        <NetworkPolicyForm
          policy={networkPolicy.networkDetails}
          redactKeys={networkPolicy.networkRedactKeys}
          disabled={!isOwner}
        />
      </section>

      <section className="card" aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        <div className={`table-wrap ${styles.contained}`}>
          <table className="table">
            <thead>
              <tr>
                <th>Member</th>
                <th>Role</th>
                <th className="optional">Joined</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((member) => {
                const self = member.userId === user.id
                const who = member.name ?? member.email
                const otherRole = member.role === 'owner' ? 'member' : 'owner'
                return (
                  <tr key={member.userId} data-testid="member-row">
                    <td>
                      <span className={styles.person}>
                        <span>
                          {member.name ?? member.email}
                          {self ? <span className="muted"> (you)</span> : null}
                        </span>
                        {member.name ? <span className="muted">{member.email}</span> : null}
                      </span>
                    </td>
                    <td>
                      <span className={member.role === 'owner' ? 'badge badge-ok' : 'badge'}>
                        {member.role}
                      </span>
                    </td>
                    <td className="optional">
                      <When date={member.joinedAt} />
                    </td>
                    <td>
                      <div className={styles.actionsCell}>
                        {isOwner && !self ? (
                          <>
                            <ConfirmButton
                              action={changeMemberRoleAction.bind(null, member.userId, otherRole)}
                              confirm={
                                otherRole === 'owner'
                                  ? `Make ${who} an owner? Owners manage members, invitations and keys.`
                                  : `Make ${who} a member? They will no longer be able to change settings.`
                              }
                              label={otherRole === 'owner' ? 'Make owner' : 'Make member'}
                              pendingLabel="Changing…"
                              accessibleLabel={`${otherRole === 'owner' ? 'Make owner' : 'Make member'}: ${who}`}
                            />
                            <ConfirmButton
                              action={removeMemberAction.bind(null, member.userId)}
                              confirm={`Remove ${who} from ${organization.name}? They lose access at once; their account stays.`}
                              label="Remove"
                              pendingLabel="Removing…"
                              accessibleLabel={`Remove ${who}`}
                              danger
                            />
                          </>
                        ) : null}
                        {self && !soleOwner ? (
                          <ConfirmButton
                            action={removeMemberAction.bind(null, member.userId)}
                            confirm={`Leave ${organization.name}? You lose access at once; an owner can invite you again.`}
                            label="Leave"
                            pendingLabel="Leaving…"
                            accessibleLabel={`Leave ${organization.name}`}
                            danger
                            navigateTo="/"
                          />
                        ) : null}
                      </div>
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
        {isOwner && members.length === 1 ? (
          <p className="muted">You are the only member so far. Invite your team below.</p>
        ) : null}
      </section>

      <section className="card" aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite people</h2>
        <p className="muted">
          Create a one-time link for someone's e-mail address. This service sends no e-mail: you copy the link
          and send it to them yourself. They open it, create their account (or sign in) and join with the role
          you chose. A link works once and expires after 7 days.
        </p>
        {!isOwner ? <p className="muted">Only owners can invite people.</p> : null}
        <InviteForm disabled={!isOwner} />
        <h3 className={styles.subheading}>Pending invitations</h3>
        {invitations.length === 0 ? (
          <p className="muted" data-testid="no-invitations">
            No pending invitations. {isOwner ? 'Invite someone with the form above. ' : ''}Links that were
            used, revoked or expired are not listed.
          </p>
        ) : (
          <div className={`table-wrap ${styles.contained}`}>
            <table className="table">
              <thead>
                <tr>
                  <th>E-mail</th>
                  <th>Role</th>
                  <th className="optional">Invited by</th>
                  <th className="optional">Expires</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {invitations.map((invitation) => (
                  <tr key={invitation.id} data-testid="invitation-row">
                    <td>{invitation.email}</td>
                    <td>{invitation.role}</td>
                    <td className="optional">{invitation.invitedBy ?? '—'}</td>
                    <td className="optional">
                      <When date={invitation.expiresAt} />
                    </td>
                    <td>
                      {isOwner ? (
                        <ConfirmButton
                          action={revokeInvitationAction.bind(null, invitation.id)}
                          confirm={`Revoke the invitation for ${invitation.email}? The link stops working at once.`}
                          label="Revoke"
                          pendingLabel="Revoking…"
                          accessibleLabel={`Revoke the invitation for ${invitation.email}`}
                          danger
                        />
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  )
}
