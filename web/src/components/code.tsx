import type { ComponentChildren } from 'preact';

/** Preformatted text in a box that scrolls; reachable by keyboard, so its overflow can be scrolled without a mouse. */
export function Code({ children }: { children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus (WCAG 2.1.1; axe scrollable-region-focusable)
    <pre class="code" tabIndex={0}>
      {children}
    </pre>
  );
}
