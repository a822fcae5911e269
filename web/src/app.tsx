import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from 'preact-iso';
import { whenSignedOut } from './api.js';
import { Layout } from './components/layout.js';
import { focusHeading } from './focus.js';
import { Checks } from './pages/checks.js';
import { SignIn } from './pages/sign-in.js';
import { currentSession, type Session, SessionContext } from './session.js';

// The checks page is the home page and comes with the shell; every other page is its own chunk, loaded when opened.
const Check = lazy(() => import('./pages/check.js').then((m) => m.Check));
const SessionPage = lazy(() => import('./pages/session.js').then((m) => m.Session));
const Locations = lazy(() => import('./pages/locations.js').then((m) => m.Locations));
const Location = lazy(() => import('./pages/locations.js').then((m) => m.Location));
const AlertChannels = lazy(() => import('./pages/alert-channels.js').then((m) => m.AlertChannels));
const Notifications = lazy(() => import('./pages/alert-channels.js').then((m) => m.Notifications));
const ErrorGroups = lazy(() => import('./pages/more.js').then((m) => m.ErrorGroups));
const Heartbeats = lazy(() => import('./pages/more.js').then((m) => m.Heartbeats));
const StatusPages = lazy(() => import('./pages/more.js').then((m) => m.StatusPages));

/**
 * The links the app's router follows itself; the others are real navigations: the trace viewer, public status
 * pages, the API and its downloads (artifacts), which the server answers, not the app.
 */
const APP_LINKS = /^\/(?!trace\/|status\/|v1\/|v2\/|heartbeats\/|openapi\.json)/;

function NotFound() {
  return (
    <Layout>
      <h1>Not found</h1>
      <p>
        There is no page here. <a href="/checks">See the checks</a>.
      </p>
    </Layout>
  );
}

function Home() {
  const { route } = useLocation();
  useEffect(() => route('/checks', true), []);
  return null;
}

/** Pages for a signed-in person; anyone else is sent to sign in, and comes back after. */
function Pages({ session }: { session: Session | null }) {
  const { path, url, route } = useLocation();
  useEffect(() => {
    if (!session && path !== '/sign-in') route(`/sign-in?next=${encodeURIComponent(url)}`, true);
  }, [session, path]);
  // Once another page is drawn (its chunk loaded), the focus goes to its heading. The router calls this on a
  // change of page only: a first load starts, as any page does, before the skip link.
  const stopFocusing = useRef(() => {});
  const pageChanged = () => {
    stopFocusing.current();
    stopFocusing.current = focusHeading();
  };
  if (!session && path !== '/sign-in') return null;
  return (
    <ErrorBoundary>
      <Router onRouteChange={pageChanged}>
        <Route path="/sign-in" component={SignIn} />
        <Route path="/" component={Home} />
        <Route path="/checks" component={Checks} />
        <Route path="/checks/:id" component={Check} />
        <Route path="/sessions/:id" component={SessionPage} />
        <Route path="/locations" component={Locations} />
        <Route path="/locations/:id" component={Location} />
        <Route path="/alert-channels" component={AlertChannels} />
        <Route path="/notifications" component={Notifications} />
        <Route path="/error-groups" component={ErrorGroups} />
        <Route path="/heartbeats" component={Heartbeats} />
        <Route path="/status-pages" component={StatusPages} />
        <Route default component={NotFound} />
      </Router>
    </ErrorBoundary>
  );
}

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    void currentSession().then(setSession);
  }, []);
  if (session === undefined) return null;
  return (
    <SessionContext.Provider value={{ session, setSession }}>
      <LocationProvider scope={APP_LINKS}>
        <Pages session={session} />
      </LocationProvider>
    </SessionContext.Provider>
  );
}
