import type { TeamAssignment } from '#contract/teams';
import { MANUAL_ASSIGNMENT } from '../domain/team/team';
import type { Doc, ReadStore, Update } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

export const TEAMS = 'teams_v1';

/** A team as the admin's Teams tab and the ticket filters read it; member names are joined at read time (docs/teams.md). */
export interface TeamView extends Doc {
  name: string;
  members: string[];
  archived: boolean;
  assignment: TeamAssignment;
  createdAt: string;
  updatedAt: string;
  _revision: number;
}

const change = (store: ReadStore, event: { data: { teamId: string }; revision: number; metadata: { occurredAt: string } }, update: Update) =>
  store
    .collection<TeamView>(TEAMS)
    .updateOne(
      { _id: event.data.teamId, _revision: { $lt: event.revision } },
      { ...update, $set: { ...update.$set, updatedAt: event.metadata.occurredAt, _revision: event.revision } },
    );

/** Serves GET /api/teams and "My teams": one document per team, archived ones kept (tickets still name them). */
export const teamsProjection: Projection = {
  name: 'teams',
  version: 2,
  collections: [TEAMS],
  ...handledBy({
    async TeamCreated(event, store) {
      const at = event.metadata.occurredAt;
      await store.collection<TeamView>(TEAMS).updateOne(
        { _id: event.data.teamId },
        {
          $setOnInsert: {
            name: event.data.name,
            members: [],
            archived: false,
            assignment: MANUAL_ASSIGNMENT,
            createdAt: at,
            updatedAt: at,
            _revision: event.revision,
          },
        },
        { upsert: true },
      );
    },
    async TeamRenamed(event, store) {
      await change(store, event, { $set: { name: event.data.name } });
    },
    async TeamMemberAdded(event, store) {
      await change(store, event, { $addToSet: { members: event.data.userId } });
    },
    async TeamMemberRemoved(event, store) {
      await change(store, event, { $pull: { members: event.data.userId } });
    },
    async TeamAssignmentSet(event, store) {
      await change(store, event, { $set: { assignment: { mode: event.data.mode, cap: event.data.cap } } });
    },
    async TeamArchived(event, store) {
      await change(store, event, { $set: { archived: true, members: [] } });
    },
  }),
};

/** The teams a staff member is in: Live Tickets' "My teams". */
export async function teamIdsOf(store: ReadStore, userId: string): Promise<string[]> {
  return (await store.collection<TeamView>(TEAMS).find({ members: userId, archived: false }, { projection: { _id: 1 } })).map((team) => team._id);
}
