import type { ComponentChildren } from 'preact';

/**
 * A box that scrolls sideways what is wider than a narrow screen (tables), reachable by keyboard so that its
 * overflow can be scrolled without a mouse.
 */
export function ScrollBox({ children, label }: { children: ComponentChildren; label: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus (WCAG 2.1.1; axe scrollable-region-focusable)
    <section class="table-wrap" tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}
