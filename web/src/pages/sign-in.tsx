import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { signIn, useSession } from '../session.js';

/** Sign-in with an API key: exchanged for a session cookie, never kept in the browser. */
export function SignIn() {
  const { setSession } = useSession();
  const { route, query } = useLocation();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Vantage</h1>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const key = new FormData(form).get('apiKey');
          setBusy(true);
          setError(null);
          try {
            setSession(await signIn(String(key ?? '')));
            form.reset();
            const next = query.next;
            route(next?.startsWith('/') && !next.startsWith('//') ? next : '/checks');
          } catch (e) {
            setError((e as Error).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="apiKey">API key</label>
        <input id="apiKey" name="apiKey" type="password" autocomplete="off" required spellcheck={false} />
        <p class="hint">The key `vantage server` printed at its first start, or one made with the API.</p>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
