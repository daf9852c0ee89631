import { DeciderSpecification } from '../../../test/support/decider';
import { type TeamTurnsEvent, evolve, initialState } from './teamTurns';
import { type ClaimTeamTicket, decide } from './decide';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const MEMBERS = ['ann', 'bob', 'cid'];
const claimFor = (ticketId: string, changes: Partial<ClaimTeamTicket> = {}): ClaimTeamTicket => ({
  type: 'ClaimTeamTicket',
  teamId: 't1',
  ticketId,
  mode: 'round-robin',
  cap: null,
  members: MEMBERS,
  available: MEMBERS,
  otherOpen: {},
  released: [],
  ...changes,
});
const claimed = (
  ticketId: string,
  agentId: string,
  load = 0,
  changes: Partial<Extract<TeamTurnsEvent, { type: 'TeamTicketClaimed' }>['data']> = {},
): TeamTurnsEvent => ({
  type: 'TeamTicketClaimed',
  data: { teamId: 't1', ticketId, agentId, mode: 'round-robin', cap: null, load, ...changes },
});

describe('Team turns', () => {
  describe('when round-robin', () => {
    it('gives the first ticket to the first member and each next one to the next member in turn', () => {
      given([])
        .when(claimFor('k1'))
        .then([claimed('k1', 'ann')]);
      given([claimed('k1', 'ann')])
        .when(claimFor('k2'))
        .then([claimed('k2', 'bob')]);
      given([claimed('k1', 'ann'), claimed('k2', 'bob'), claimed('k3', 'cid')])
        .when(claimFor('k4'))
        .then([claimed('k4', 'ann', 1)]);
    });

    it('skips a member who is away and one at the cap', () => {
      given([claimed('k1', 'ann')])
        .when(claimFor('k2', { available: ['ann', 'cid'] }))
        .then([claimed('k2', 'cid')]);
      given([claimed('k1', 'ann')])
        .when(claimFor('k2', { cap: 1, otherOpen: { bob: 1 } }))
        .then([claimed('k2', 'cid', 0, { cap: 1 })]);
    });

    it('claims nothing when every available member is at the cap, and nothing twice for one ticket', () => {
      given([claimed('k1', 'ann')])
        .when(claimFor('k2', { cap: 1, available: ['ann'] }))
        .then([]);
      given([claimed('k1', 'ann')])
        .when(claimFor('k1'))
        .then([]);
    });

    it('releases the tickets found closed, so they no longer count against the cap', () => {
      given([claimed('k1', 'ann')])
        .when(
          claimFor('k2', {
            cap: 1,
            available: ['ann'],
            released: [
              { ticketId: 'k1', agentId: 'ann' },
              { ticketId: 'unknown', agentId: 'ann' },
            ],
          }),
        )
        .then([{ type: 'TeamTicketsReleased', data: { teamId: 't1', ticketIds: ['k1'] } }, claimed('k2', 'ann', 0, { cap: 1 })]);
    });

    it('claims a returned ticket again for the next in turn, but not once another process claimed it anew', () => {
      const returned = [{ ticketId: 'k1', agentId: 'ann' }];
      given([claimed('k1', 'ann')])
        .when(claimFor('k1', { available: ['ann', 'bob'], released: returned }))
        .then([{ type: 'TeamTicketsReleased', data: { teamId: 't1', ticketIds: ['k1'] } }, claimed('k1', 'bob')]);
      given([claimed('k1', 'ann'), { type: 'TeamTicketsReleased', data: { teamId: 't1', ticketIds: ['k1'] } }, claimed('k1', 'bob')])
        .when(claimFor('k1', { available: ['ann', 'bob'], released: returned }))
        .then([]);
    });
  });

  describe('when least-loaded', () => {
    it('gives the ticket to the member with the fewest open tickets, the next in turn among equals', () => {
      given([claimed('k1', 'ann')])
        .when(claimFor('k2', { mode: 'least-loaded', otherOpen: { bob: 2 } }))
        .then([claimed('k2', 'cid', 0, { mode: 'least-loaded' })]);
      given([])
        .when(claimFor('k1', { mode: 'least-loaded', otherOpen: { ann: 1 } }))
        .then([claimed('k1', 'bob', 0, { mode: 'least-loaded' })]);
    });
  });
});
