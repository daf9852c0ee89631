import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { toastShown } from '../../components/toastsSlice';
import { ListEditorDialogs, useListEditor } from '../../components/ListEditor';
import { Badge, Banner, EmptyState } from '../../components/ui';
import { AVAILABILITY_LABEL } from '../../entities/team/AvailabilityToggle';
import {
  type Availability,
  type Team,
  type TeamAssignment,
  useAddTeamMemberMutation,
  useSetMemberAvailabilityMutation,
  useSetTeamAssignmentMutation,
  useArchiveTeamMutation,
  useCreateTeamMutation,
  useRemoveTeamMemberMutation,
  useRenameTeamMutation,
  useTeamsQuery,
} from '../../entities/team/api';
import { WHOLE_LIST } from '../../app/api';
import { useUsersQuery } from './api';
import { type TeamInput, TeamForm } from './TeamForm';

const MODE_LABEL: Record<TeamAssignment['mode'], string> = { manual: 'Manual assignment', 'round-robin': 'Round-robin', 'least-loaded': 'Least-loaded' };

/** "Round-robin, at most 5 open tickets each": the team's automatic assignment in words. */
const assignmentText = ({ mode, cap }: TeamAssignment) =>
  mode === 'manual' || cap === null ? MODE_LABEL[mode] : `${MODE_LABEL[mode]}, at most ${cap} open tickets each`;

/** One team as a card: its name, how it assigns, its members with their availability (an admin switches it here). */
function TeamCard({ team, onEdit, onDelete }: { team: Team; onEdit: () => void; onDelete: () => void }) {
  const dispatch = useAppDispatch();
  const [setMemberAvailability, setting] = useSetMemberAvailabilityMutation();
  const switchMember = async (userId: string, availability: Availability) => {
    try {
      await setMemberAvailability({ id: team._id, userId, availability }).unwrap();
    } catch (error) {
      dispatch(toastShown('error', errorMessage(error, 'Failed to change availability')));
    }
  };
  return (
    <article className="admin-card" aria-label={team.name}>
      <header className="admin-card-head">
        <h3>{team.name}</h3>
        <Badge variant="outline">{team.members.length === 1 ? '1 member' : `${team.members.length} members`}</Badge>
      </header>
      <p className="muted small">{assignmentText(team.assignment)}</p>
      {team.members.length > 0 ? (
        <ul className="field-list small">
          {team.members.map((member) => {
            const next = member.availability === 'available' ? 'away' : 'available';
            return (
              <li key={member._id}>
                {member.firstName} {member.lastName}{' '}
                <Badge variant={member.availability === 'available' ? 'success' : member.availability === 'away' ? 'secondary' : 'outline'}>
                  {AVAILABILITY_LABEL[member.availability]}
                </Badge>{' '}
                <button
                  type="button"
                  className="button button-ghost button-small"
                  disabled={setting.isLoading}
                  aria-label={`Set ${member.firstName} ${member.lastName} ${AVAILABILITY_LABEL[next]}`}
                  onClick={() => void switchMember(member._id, next)}
                >
                  Set {AVAILABILITY_LABEL[next]}
                </button>
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="muted small">No members</p>
      )}
      <footer className="admin-card-actions">
        <button type="button" className="button button-ghost button-small" aria-label={`Edit team ${team.name}`} onClick={onEdit}>
          <Icon name="edit" size={14} /> Edit
        </button>
        <button type="button" className="button button-ghost button-small danger" aria-label={`Delete team ${team.name}`} onClick={onDelete}>
          <Icon name="trash" size={14} /> Delete
        </button>
      </footer>
    </article>
  );
}

/** The Admin Panel's Teams tab (docs/teams.md): teams share the work; a deleted team is archived, and its tickets keep its name. */
export function TeamsTab() {
  const dispatch = useAppDispatch();
  const { data, error, isLoading } = useTeamsQuery();
  const users = useUsersQuery({ page: 1, limit: WHOLE_LIST.limit });
  const staff = (users.data?.users ?? []).filter((user) => user.isActive && user.role !== 'customer');
  const [createTeam, creating] = useCreateTeamMutation();
  const [renameTeam, renaming] = useRenameTeamMutation();
  const [addMember, adding] = useAddTeamMemberMutation();
  const [removeMember, removingMember] = useRemoveTeamMemberMutation();
  const [archiveTeam, archiving] = useArchiveTeamMutation();
  const [setAssignment, assigning] = useSetTeamAssignmentMutation();
  const editor = useListEditor<Team, TeamInput>({
    create: async ({ name, members, assignment }) => {
      const { team } = await createTeam({ name, members }).unwrap();
      if (assignment.mode !== 'manual') await setAssignment({ id: team._id, ...assignment }).unwrap();
    },
    // Each change is its own event on the server: the name, each member who joins or leaves, then how it assigns.
    update: async (team, { name, members, assignment }) => {
      const before = team.members.map((member) => member._id);
      if (name !== team.name) await renameTeam({ id: team._id, name }).unwrap();
      for (const userId of members.filter((id) => !before.includes(id))) await addMember({ id: team._id, userId }).unwrap();
      for (const userId of before.filter((id) => !members.includes(id))) await removeMember({ id: team._id, userId }).unwrap();
      if (assignment.mode !== team.assignment.mode || assignment.cap !== team.assignment.cap) await setAssignment({ id: team._id, ...assignment }).unwrap();
    },
    remove: (team) => archiveTeam(team._id).unwrap(),
    notify: (kind, text) => dispatch(toastShown(kind, text)),
    texts: {
      created: 'Team created successfully',
      updated: 'Team updated successfully',
      deleted: 'Team deleted successfully',
      saveFailed: 'Failed to create or update team',
      deleteFailed: 'Failed to delete team',
    },
  });
  const { setEditing, setDeleting } = editor;

  return (
    <div className="admin-tab">
      <div className="toolbar">
        <p className="muted">Teams share the work: a category can route its new tickets to a team, and agents filter Live Tickets by their teams.</p>
        <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
          <Icon name="plus" size={16} /> Add Team
        </button>
      </div>
      {error ? <Banner kind="error">{errorMessage(error, 'Failed to load admin data')}</Banner> : null}
      {isLoading && <p className="muted">Loading teams...</p>}
      {data && data.teams.length === 0 && (
        <EmptyState title="No teams yet" icon="profile">
          Add one to share tickets among agents.
        </EmptyState>
      )}
      <div className="admin-grid">
        {data?.teams.map((team) => (
          <TeamCard key={team._id} team={team} onEdit={() => setEditing(team)} onDelete={() => setDeleting(team)} />
        ))}
      </div>
      <ListEditorDialogs
        editor={editor}
        titles={{ add: 'Add New Team', edit: 'Edit Team' }}
        confirmMessage="Are you sure you want to delete this team? Its tickets keep its name, and categories stop routing to it."
        saving={creating.isLoading || renaming.isLoading || adding.isLoading || removingMember.isLoading || assigning.isLoading}
        removing={archiving.isLoading}
        form={({ record, ...dialog }) => <TeamForm team={record} staff={staff} {...dialog} />}
      />
    </div>
  );
}
