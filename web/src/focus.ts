/** Where keyboard focus goes when the page changes, so that a keyboard or screen-reader user starts at its top. */

const HEADING = 'main h1';
/** How long a page may take to draw its heading (its data loads first). */
const WAIT_MS = 5_000;

function focusNow(element: HTMLElement): void {
  if (!element.hasAttribute('tabindex')) element.tabIndex = -1;
  element.focus();
}

/** Focuses the page's heading, waiting for it to be drawn; returns a function that stops waiting. */
export function focusHeading(): () => void {
  const now = document.querySelector<HTMLElement>(HEADING);
  if (now) {
    focusNow(now);
    return () => {};
  }
  const observer = new MutationObserver(() => {
    const heading = document.querySelector<HTMLElement>(HEADING);
    if (!heading) return;
    stop();
    focusNow(heading);
  });
  const timer = setTimeout(() => stop(), WAIT_MS);
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
  };
  observer.observe(document.body, { childList: true, subtree: true });
  return stop;
}
