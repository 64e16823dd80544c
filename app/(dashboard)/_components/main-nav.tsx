'use client'

import Link from 'next/link'
import { usePathname } from 'next/navigation'

export interface NavItem {
  href: string
  label: string
  /** Current only on this exact path (a section's index among its own sub-pages). */
  exact?: boolean
}

function isCurrent(pathname: string, item: NavItem): boolean {
  if (item.href === '/' || item.exact) return pathname === item.href
  return pathname === item.href || pathname.startsWith(`${item.href}/`)
}

/** A row of links that marks the current section for sighted and screen-reader users alike. */
export function NavLinks({
  items,
  label,
  className,
}: {
  items: NavItem[]
  label: string
  className?: string
}) {
  const pathname = usePathname()
  return (
    <nav aria-label={label} className={className}>
      {items.map((item) => (
        <Link key={item.href} href={item.href} aria-current={isCurrent(pathname, item) ? 'page' : undefined}>
          {item.label}
        </Link>
      ))}
    </nav>
  )
}
