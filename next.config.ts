import type { NextConfig } from 'next'

const nextConfig: NextConfig = {
  // PGlite ships a WASM build and postgres.js/pino use Node APIs: load them from node_modules at
  // run time instead of bundling them into server chunks.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'pino'],
  poweredByHeader: false,
  typedRoutes: false,
}

export default nextConfig
