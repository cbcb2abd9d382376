/**
 * The page: asks GET /json/session who is logged in, then shows the login form or the app.
 * A session that ends later (401 anywhere) brings the login form back over the app, whose
 * drafts are kept (compose saves them as they are typed).
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError, setCsrfToken, whenSessionLost, type Session } from './api';
import { App } from './app';
import { Login } from './login';
import './styles.css';

function Root() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [notice, setNotice] = useState<string>('');
  const [bootError, setBootError] = useState<string>('');
  // Whether this page has had a session: the first visit's 401 (nobody logged in yet) is no news.
  const hadSession = useRef(false);

  const check = () => {
    setBootError('');
    api.session().then(
      (s) => {
        setCsrfToken(s.csrf_token);
        hadSession.current = true;
        setSession(s);
      },
      (e) => {
        if (e?.status === 401) setSession(null);
        else setBootError(describeError(e));
      },
    );
  };

  useEffect(() => {
    whenSessionLost(() => {
      if (hadSession.current) setNotice('Your session has ended. Log in again; what you typed is kept.');
      setSession(null);
    });
    check();
  }, []);

  if (bootError)
    return (
      <main class="boot">
        <p role="alert">{bootError}</p>
        <button type="button" onClick={check}>Try again</button>
      </main>
    );
  if (session === undefined) return <p class="boot" role="status">Loading…</p>;
  if (session === null)
    return (
      <Login
        notice={notice}
        onLoggedIn={(s) => {
          setCsrfToken(s.csrf_token);
          setNotice('');
          hadSession.current = true;
          setSession(s);
        }}
      />
    );
  return (
    <App
      key={session.user_id}
      session={session}
      onLoggedOut={() => {
        setNotice('You have logged out.');
        setSession(null);
      }}
    />
  );
}

render(<Root />, document.getElementById('app')!);
