/** The login form (email and password), and in development mode the one-click list of the development users. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, describeError, type Session } from './api';

export function Login({ notice, onLoggedIn }: { notice: string; onLoggedIn: (session: Session) => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [devUsers, setDevUsers] = useState<{ email: string; full_name: string; role: number | string }[]>([]);
  const email = useRef<HTMLInputElement>(null);
  const password = useRef<HTMLInputElement>(null);

  useEffect(() => {
    email.current?.focus();
    // Answers only on a development server; elsewhere the list is simply not shown.
    api.devUsers().then((r) => setDevUsers(r.users), () => undefined);
  }, []);

  const done = (session: Session) => {
    // The session's own reply (user and token) is what /json/session gives.
    api.session().then(onLoggedIn, () => onLoggedIn(session));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      done(await api.login(email.current!.value.trim(), password.current!.value));
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'Wrong email or password. Check them and try again.' : describeError(err));
      password.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  const devLogin = async (address: string) => {
    setBusy(true);
    setError('');
    try {
      done(await api.devLogin(address));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login" aria-labelledby="login-title">
      <h1 id="login-title">Log in to Team chat</h1>
      {notice && <p class="notice" role="status">{notice}</p>}
      <form onSubmit={submit} noValidate>
        <label for="login-email">Email</label>
        <input id="login-email" ref={email} name="username" type="email" autocomplete="username" required />
        <label for="login-password">Password</label>
        <input id="login-password" ref={password} name="password" type="password" autocomplete="current-password" required />
        {error && (
          <p class="error" role="alert" id="login-error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Log in
        </button>
      </form>
      {devUsers.length > 0 && (
        <section class="dev-users" aria-labelledby="dev-users-title">
          <h2 id="dev-users-title">Or, on this development server, one click as</h2>
          <ul>
            {devUsers.map((u) => (
              <li key={u.email}>
                <button type="button" disabled={busy} onClick={() => devLogin(u.email)}>
                  {u.full_name} <span class="muted">({u.email})</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}
