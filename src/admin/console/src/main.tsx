import { Provider } from '@urql/preact';
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider, Route, Router } from 'preact-iso';
import { createGraphqlClient } from './client';
import { Layout } from './components/Layout';
import { Accounts } from './pages/Accounts';
import { Channels } from './pages/Channels';
import { FailureDetail, Failures } from './pages/Failures';
import { History } from './pages/History';
import { Overview } from './pages/Overview';
import { Pending } from './pages/Pending';
import { Queue } from './pages/Queue';
import { QueueItemDetail } from './pages/QueueItem';
import { Reconciliation } from './pages/Reconciliation';
import { SignIn } from './pages/SignIn';
import { Tokens } from './pages/Tokens';
import { Webhooks } from './pages/Webhooks';
import { currentSession, onSessionChange } from './session';
import './styles.css';

function NotFound() {
  return (
    <section class="card">
      <h2>Not found</h2>
      <a href="/admin/">Back to the overview</a>
    </section>
  );
}

function App() {
  const [session, setSession] = useState(currentSession);
  useEffect(() => onSessionChange(setSession), []);
  // A new client per session: nothing one admin saw stays in the cache for the next.
  const client = useMemo(() => createGraphqlClient(), [session?.token]);
  return (
    <Provider value={client}>
      {!session ? (
        <SignIn />
      ) : (
        <LocationProvider>
          <Layout session={session}>
            <Router>
              <Route path="/admin" component={Overview} />
              <Route path="/admin/" component={Overview} />
              <Route path="/admin/pending" component={Pending} />
              <Route path="/admin/failures" component={Failures} />
              <Route path="/admin/failures/:id" component={FailureDetail} />
              <Route path="/admin/queue" component={Queue} />
              <Route path="/admin/queue/:id" component={QueueItemDetail} />
              <Route path="/admin/webhooks" component={Webhooks} />
              <Route path="/admin/reconciliation" component={Reconciliation} />
              <Route path="/admin/history" component={History} />
              <Route path="/admin/channels" component={Channels} />
              <Route path="/admin/tokens" component={Tokens} />
              <Route path="/admin/accounts" component={Accounts} />
              <Route default component={NotFound} />
            </Router>
          </Layout>
        </LocationProvider>
      )}
    </Provider>
  );
}

render(<App />, document.getElementById('app')!);
