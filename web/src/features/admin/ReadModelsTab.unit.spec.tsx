/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import type { ProjectionCheck, ProjectionFaults } from '#contract/readModels';
import { renderWeb } from '../../test/render';
import { ProjectionCheckView, ProjectionFaultsView } from './ReadModelsTab';

const EVENT = { eventId: 'e-1', occurredAt: '2026-11-20T10:00:00.000Z' };
const CLEAN: ProjectionFaults = { conflicts: { count: 0, items: [] }, failures: { count: 0, items: [] }, stalled: [], retrying: null, problems: [] };
const FAULTY: ProjectionFaults = {
  conflicts: {
    count: 1,
    items: [
      {
        ...EVENT,
        _id: 'c',
        kind: 'conflict',
        projection: 'users',
        position: 12,
        eventType: 'UserCreated',
        collection: 'users_v1',
        field: 'email',
        value: 'ann@x.test',
        holders: ['u1', 'u2'],
      },
    ],
  },
  failures: {
    count: 1,
    items: [
      { ...EVENT, _id: 'f', kind: 'failure', projection: 'tickets', position: 40, eventType: 'MessagePosted', streamId: 'ticket-9', error: 'TypeError: boom' },
    ],
  },
  stalled: [],
  retrying: null,
  problems: ['users: 1 value of email held by more than one document', 'tickets: 1 event could not be applied and was skipped'],
};

describe('Read Models tab (issue 50)', () => {
  it('when the read models follow the log, then it says so and lists nothing', () => {
    renderWeb(<ProjectionFaultsView faults={CLEAN} />);
    expect(screen.getByRole('status')).toHaveTextContent('The read models follow the event log');
    expect(screen.getByText('No value is held twice')).toBeInTheDocument();
    expect(screen.getByText('No event was skipped')).toBeInTheDocument();
  });

  it('when values are held twice and events skipped, then health says why and each is listed with its event', () => {
    renderWeb(<ProjectionFaultsView faults={FAULTY} />);
    expect(screen.getByRole('status')).toHaveTextContent('Health is degraded:users: 1 value of email held by more than one document');
    expect(screen.getByRole('table', { name: 'Values held twice' })).toHaveTextContent('usersemailann@x.testu1, u2#12 UserCreated');
    expect(screen.getByRole('table', { name: 'Events skipped' })).toHaveTextContent('tickets#40 MessagePostedticket-9');
    expect(screen.getByRole('table', { name: 'Events skipped' })).toHaveTextContent('TypeError: boom');
  });

  it('when a check finds a difference, then it names the collection and the documents', () => {
    const collection = { name: 'tickets_v1', rebuilt: 3, live: 3, missing: { count: 0, ids: [] }, extra: { count: 0, ids: [] } };
    const check: ProjectionCheck = {
      ok: false,
      position: 99,
      events: 99,
      collections: [
        { ...collection, name: 'users_v1', different: { count: 0, documents: [] } },
        { ...collection, different: { count: 1, documents: [{ _id: 't1', fields: ['status'] }] } },
      ],
      liveMovedOn: false,
      durationMs: 1200,
    };
    renderWeb(<ProjectionCheckView check={check} />);
    expect(screen.getByRole('status')).toHaveTextContent('Read models differ from a replay of the log. 99 events replayed into 2 collections in 1.2 s');
    expect(screen.getByRole('listitem')).toHaveTextContent('tickets_v1: 0 missing, 0 extra, 1 different (t1: status)');
  });
});
