/**
 * The web app's pages (web/src/app.tsx routes the same paths in the browser): each is answered with the app's
 * index.html, so that any page's URL can be shared and opened directly.
 */
export const APP_PAGES = [
  '/',
  '/sign-in',
  '/checks',
  '/checks/:id',
  '/sessions/:id',
  '/locations',
  '/locations/:id',
  '/alert-channels',
  '/notifications',
  '/error-groups',
  '/heartbeats',
  '/status-pages',
] as const;

/** The page of a check session: what `checkSessionLink` and alerts' `RESULT_LINK` point at. */
export function sessionPagePath(sessionId: string): string {
  return `/sessions/${encodeURIComponent(sessionId)}`;
}
