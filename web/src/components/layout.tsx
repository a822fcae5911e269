import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { focusHeading } from '../focus.js';
import { signOut, useSession } from '../session.js';

const SECTIONS = [
  { href: '/checks', label: 'Checks' },
  { href: '/locations', label: 'Private locations' },
  { href: '/alert-channels', label: 'Alert channels' },
  { href: '/notifications', label: 'Notifications' },
  { href: '/error-groups', label: 'Error groups' },
  { href: '/heartbeats', label: 'Heartbeats' },
  { href: '/status-pages', label: 'Status pages' },
];

/** The frame of every signed-in page: a skip link, the sections, the page. */
export function Layout({ children }: { children: ComponentChildren }) {
  const { path, route } = useLocation();
  const { setSession } = useSession();
  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link to the content; the script only moves the focus on to its heading */}
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          focusHeading();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/checks">
          Vantage
        </a>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.href}>
                <a
                  href={section.href}
                  aria-current={
                    path === section.href || path.startsWith(`${section.href}/`) ? 'page' : undefined
                  }
                >
                  {section.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          class="link"
          onClick={async () => {
            await signOut();
            setSession(null);
            route('/sign-in');
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
