import type { NextConfig } from 'next'

const securityHeaders = [
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
]

// Sign-in pages are never framed: clickjacking on a password form.
const noFraming = [
  { key: 'Content-Security-Policy', value: "frame-ancestors 'none'" },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Cache-Control', value: 'no-store' },
]

const nextConfig: NextConfig = {
  // PGlite ships a WASM build and postgres.js/pino use Node APIs: load them from node_modules at
  // run time instead of bundling them into server chunks.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'pino'],
  poweredByHeader: false,
  async headers() {
    return [
      { source: '/:path*', headers: securityHeaders },
      { source: '/login', headers: noFraming },
      { source: '/signup', headers: noFraming },
    ]
  },
}

export default nextConfig
