import type { ProjectionCheck, ProjectionFaults } from '#contract/readModels';
import { errorMessage } from '../../app/api';
import { Banner, DataTable, EmptyState } from '../../components/ui';
import { formatDateTime, plural } from '../../lib/format';
import { useProjectionCheckMutation, useProjectionFaultsQuery } from './api';

/** Stalls and retries come and go by themselves: the tab looks again this often while it is open. */
const REFRESH_MS = 5000;

/** Conflicts and skipped events as the server lists them (the oldest 100 of each, with the full counts). */
export function ProjectionFaultsView({ faults }: { faults: ProjectionFaults }) {
  const { conflicts, failures } = faults;
  return (
    <>
      {faults.problems.length === 0 ? (
        <Banner kind="success">The read models follow the event log: no conflict, no skipped event, nothing stalled.</Banner>
      ) : (
        <Banner kind="warning">
          <strong>Health is degraded:</strong>
          <ul className="plain-list">
            {faults.problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </Banner>
      )}
      <h3>Values held twice ({conflicts.count})</h3>
      <p className="muted">
        A value the desk keeps unique (an e-mail, a shortcode) that the log gives to more than one document. The first holder in log order keeps it for sign-in
        and lookups; rename or delete the others.
      </p>
      {conflicts.count === 0 ? (
        <EmptyState title="No value is held twice" icon="check" />
      ) : (
        <DataTable columns={['Read model', 'Field', 'Value', 'Holders (first wins)', 'Since event']} label="Values held twice">
          {conflicts.items.map((conflict) => (
            <tr key={conflict._id}>
              <td>{conflict.projection}</td>
              <td>{conflict.field}</td>
              <td className="mono">{conflict.value}</td>
              <td className="mono small">{conflict.holders.join(', ')}</td>
              <td>
                #{conflict.position} {conflict.eventType}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <h3>Events skipped ({failures.count})</h3>
      <p className="muted">
        An event a read model could not apply: it is skipped for that model only. A fix ships with a new version of the model, which rebuilds it.
      </p>
      {failures.count === 0 ? (
        <EmptyState title="No event was skipped" icon="check" />
      ) : (
        <DataTable columns={['Read model', 'Event', 'Stream', 'Written', 'Error']} label="Events skipped">
          {failures.items.map((failure) => (
            <tr key={failure._id}>
              <td>{failure.projection}</td>
              <td>
                #{failure.position} {failure.eventType}
              </td>
              <td className="mono small">{failure.streamId}</td>
              <td>{formatDateTime(failure.occurredAt)}</td>
              <td className="mono small">{failure.error}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

/** The replay's verdict, one line per collection that differs (all of them equal: one line). */
export function ProjectionCheckView({ check }: { check: ProjectionCheck }) {
  const differing = check.collections.filter((collection) => collection.missing.count + collection.extra.count + collection.different.count > 0);
  const summary = `${plural(check.events, 'event')} replayed into ${plural(check.collections.length, 'collection')} in ${(check.durationMs / 1000).toFixed(1)} s, compared at log position ${check.position}`;
  if (check.ok) return <Banner kind="success">Every read model equals a replay of the log. {summary}.</Banner>;
  return (
    <Banner kind="warning">
      <strong>Read models differ from a replay of the log.</strong> {summary}.
      {check.liveMovedOn && ' The live models applied more events while the check ran: run it again to tell a fault from that.'}
      <ul className="plain-list">
        {differing.map((collection) => (
          <li key={collection.name}>
            {collection.name}: {collection.missing.count} missing, {collection.extra.count} extra, {collection.different.count} different
            {collection.different.documents.length > 0 &&
              ` (${collection.different.documents.map((document) => `${document._id}: ${document.fields.join(', ')}`).join('; ')})`}
          </li>
        ))}
      </ul>
    </Banner>
  );
}

/** What keeps the read models from being what the log says (docs/read-models.md), and the proof that they are. */
export function ReadModelsTab() {
  const faults = useProjectionFaultsQuery(undefined, { pollingInterval: REFRESH_MS });
  const [check, checking] = useProjectionCheckMutation();
  return (
    <div className="read-models-tab">
      {faults.error ? <Banner kind="error">{errorMessage(faults.error, 'Failed to load data')}</Banner> : null}
      {faults.data ? <ProjectionFaultsView faults={faults.data} /> : !faults.error && <p className="muted">Loading...</p>}
      <h3>Check against the log</h3>
      <p className="muted">
        Replays the whole event log into a scratch copy and compares it with the live read models. It reads every event: minutes on a large desk.
      </p>
      <button type="button" className="button button-secondary" disabled={checking.isLoading} onClick={() => void check()}>
        {checking.isLoading ? 'Checking...' : 'Check the read models'}
      </button>
      {checking.error ? <Banner kind="error">{errorMessage(checking.error, 'The check failed')}</Banner> : null}
      {checking.data && <ProjectionCheckView check={checking.data} />}
    </div>
  );
}
