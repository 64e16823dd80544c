import { defineConfig } from 'drizzle-kit'

// Migrations are generated from the schema and committed; the app applies them itself at
// start-up (db/migrate.ts), on Postgres and on PGlite alike.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
})
