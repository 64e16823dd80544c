'use client'

import Link from 'next/link'
import { usePathname } from 'next/navigation'
import { type ReactNode, useEffect, useId, useRef, useState } from 'react'

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
  // Null only where the App Router is not mounted (a Pages Router page); these links live in it.
  const pathname = usePathname() ?? ''
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

/**
 * The main navigation and `extra` (the sign-out button): one row on wide screens; on a phone,
 * a panel behind a Menu button so the header stays one short row (the CSS decides which, by
 * width, so the server's page is right before any script runs). The panel closes on the next
 * page, on Escape (focus back on the button) and when focus leaves it.
 */
export function MainMenu({ items, label, extra }: { items: NavItem[]; label: string; extra?: ReactNode }) {
  const [open, setOpen] = useState(false)
  const pathname = usePathname()
  const panelId = useId()
  const button = useRef<HTMLButtonElement>(null)
  const panel = useRef<HTMLDivElement>(null)

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page closes the menu
  useEffect(() => setOpen(false), [pathname])

  useEffect(() => {
    if (!open) return
    const inside = (target: EventTarget | null) =>
      target instanceof Node && Boolean(panel.current?.contains(target) || button.current?.contains(target))
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      setOpen(false)
      button.current?.focus()
    }
    const onFocus = (event: FocusEvent) => {
      if (!inside(event.target)) setOpen(false)
    }
    document.addEventListener('keydown', onKey)
    document.addEventListener('focusin', onFocus)
    return () => {
      document.removeEventListener('keydown', onKey)
      document.removeEventListener('focusin', onFocus)
    }
  }, [open])

  return (
    <>
      <button
        ref={button}
        type="button"
        className="btn btn-small menu-button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((was) => !was)}
      >
        Menu
      </button>
      <div ref={panel} id={panelId} className="menu-panel" data-open={open ? 'true' : 'false'}>
        <NavLinks items={items} label={label} className="main-nav" />
        {extra}
      </div>
    </>
  )
}
