import { sql } from 'drizzle-orm'
import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { createdAt, id, oneOf, ts } from './columns'
import { organizations, users } from './organizations'

export const TOKEN_ENDPOINT_AUTH_METHODS = ['none', 'client_secret_post'] as const

export const oauthClients = pgTable(
  'oauth_clients',
  {
    /** `svc_client_...`, public. */
    clientId: text('client_id').primaryKey(),
    clientName: text('client_name').notNull(),
    redirectUris: text('redirect_uris').array().notNull(),
    tokenEndpointAuthMethod: text('token_endpoint_auth_method', {
      enum: ['none', 'client_secret_post'],
    }).notNull(),
    grantTypes: text('grant_types').array().notNull(),
    responseTypes: text('response_types').array().notNull(),
    scope: text('scope').notNull(),
    clientSecretHash: text('client_secret_hash'),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [oneOf('oauth_clients_auth_method_check', t.tokenEndpointAuthMethod, TOKEN_ENDPOINT_AUTH_METHODS)],
)

/** A user's approval of a client for a scope in one organization; revocable. */
export const oauthConsents = pgTable(
  'oauth_consents',
  {
    id: id(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.clientId, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    createdAt: createdAt(),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    uniqueIndex('oauth_consents_active_unique')
      .on(t.clientId, t.userId, t.organizationId, t.scope)
      .where(sql`${t.revokedAt} is null`),
    index('oauth_consents_user_idx').on(t.userId),
  ],
)

export const oauthAuthorizationCodes = pgTable(
  'oauth_authorization_codes',
  {
    id: id(),
    codeHash: text('code_hash').notNull(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.clientId, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    consentId: uuid('consent_id').references(() => oauthConsents.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    scope: text('scope').notNull(),
    resource: text('resource').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** Set by the one atomic "mark used where unused" redemption. */
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('oauth_codes_hash_unique').on(t.codeHash)],
)

/**
 * A grant's token chain: every access and refresh token issued from one authorization code
 * and its rotations. Revoking the chain revokes all of them (code replay, refresh reuse).
 */
export const oauthTokenChains = pgTable(
  'oauth_token_chains',
  {
    id: id(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.clientId, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    consentId: uuid('consent_id').references(() => oauthConsents.id, { onDelete: 'cascade' }),
    authorizationCodeId: uuid('authorization_code_id').references(() => oauthAuthorizationCodes.id, {
      onDelete: 'set null',
    }),
    scope: text('scope').notNull(),
    resource: text('resource').notNull(),
    createdAt: createdAt(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    uniqueIndex('oauth_chains_code_unique').on(t.authorizationCodeId),
    index('oauth_chains_consent_idx').on(t.consentId),
  ],
)

export const oauthAccessTokens = pgTable(
  'oauth_access_tokens',
  {
    id: id(),
    tokenHash: text('token_hash').notNull(),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => oauthTokenChains.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.clientId, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    resource: text('resource').notNull(),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    uniqueIndex('oauth_access_tokens_hash_unique').on(t.tokenHash),
    index('oauth_access_tokens_chain_idx').on(t.chainId),
    index('oauth_access_tokens_client_idx').on(t.clientId),
  ],
)

export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    id: id(),
    tokenHash: text('token_hash').notNull(),
    chainId: uuid('chain_id')
      .notNull()
      .references(() => oauthTokenChains.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** Set when this token was exchanged for its successor; presenting it again is reuse. */
    rotatedAt: ts('rotated_at'),
    revokedAt: ts('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('oauth_refresh_tokens_hash_unique').on(t.tokenHash),
    index('oauth_refresh_tokens_chain_idx').on(t.chainId),
  ],
)
