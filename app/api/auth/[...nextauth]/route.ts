import type { NextRequest } from 'next/server'
import NextAuth from 'next-auth'
import { getAuthOptions } from '@/lib/auth/options'

type RouteContext = { params: Promise<{ nextauth: string[] }> }

// Options are built on the first request, not at import, so `next build` needs no AUTH_SECRET.
async function handler(req: NextRequest, context: RouteContext): Promise<Response> {
  return NextAuth(req, context, getAuthOptions())
}

export { handler as GET, handler as POST }
