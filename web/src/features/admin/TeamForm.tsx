import { type FormEvent, useState } from 'react';
import { ASSIGNMENT_MODES, type TeamAssignment, createTeamSchema, teamAssignmentSchema } from '#contract/teams';
import { Banner, FormActions } from '../../components/ui';
import type { Team } from '../../entities/team/api';
import { type FieldErrors, checkWith } from '../../lib/validation';
import type { AdminUser } from './api';

export interface TeamInput {
  name: string;
  members: string[];
  assignment: TeamAssignment;
}

const MODE_OPTIONS: Record<TeamAssignment['mode'], string> = {
  manual: 'Manual (agents take tickets)',
  'round-robin': 'Round-robin',
  'least-loaded': 'Least-loaded (fewest open tickets)',
};

/** A team's name and its members, picked among the active agents and admins (docs/teams.md); checked with the API's own schema. */
export function TeamForm({
  team,
  staff,
  saving,
  error,
  onSubmit,
  onCancel,
}: {
  team: Team | null;
  staff: AdminUser[];
  saving: boolean;
  error: string | null;
  onSubmit: (input: TeamInput) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(team?.name ?? '');
  const [members, setMembers] = useState<string[]>(team?.members.map((member) => member._id) ?? []);
  const [mode, setMode] = useState<TeamAssignment['mode']>(team?.assignment.mode ?? 'manual');
  const [cap, setCap] = useState(team?.assignment.cap === null || team === null ? '' : String(team.assignment.cap));
  const [errors, setErrors] = useState<FieldErrors>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkWith(createTeamSchema, { name, members });
    const assignment = checkWith(teamAssignmentSchema, { mode, cap: cap.trim() === '' ? null : Number(cap) });
    if (!checked.ok || !assignment.ok) return setErrors({ ...(checked.ok ? {} : checked.errors), ...(assignment.ok ? {} : assignment.errors) });
    setErrors({});
    onSubmit({ ...checked.data, assignment: assignment.data });
  };
  const toggle = (userId: string, on: boolean) => setMembers((current) => (on ? [...current, userId] : current.filter((id) => id !== userId)));

  return (
    <form className="form" onSubmit={submit} noValidate>
      {error && <Banner kind="error">{error}</Banner>}
      <div className="field">
        <label htmlFor="team-name">Team Name</label>
        <input
          id="team-name"
          value={name}
          maxLength={60}
          autoComplete="off"
          aria-invalid={errors.name ? true : undefined}
          onChange={(e) => setName(e.target.value)}
        />
        {errors.name && <span className="field-error">{errors.name}</span>}
      </div>
      <fieldset className="field">
        <legend>Members</legend>
        {staff.length === 0 && <p className="muted small">No active agents or admins yet.</p>}
        {staff.map((user) => (
          <label key={user._id} className="toggle">
            <input type="checkbox" checked={members.includes(user._id)} onChange={(e) => toggle(user._id, e.target.checked)} />
            {user.firstName} {user.lastName} <span className="muted">({user.role === 'admin' ? 'Admin' : 'Agent'})</span>
          </label>
        ))}
        {errors.members && <span className="field-error">{errors.members}</span>}
      </fieldset>
      <div className="field">
        <label htmlFor="team-assignment">Assign new tickets</label>
        <select id="team-assignment" value={mode} onChange={(e) => setMode(e.target.value as TeamAssignment['mode'])}>
          {ASSIGNMENT_MODES.map((option) => (
            <option key={option} value={option}>
              {MODE_OPTIONS[option]}
            </option>
          ))}
        </select>
        {errors.mode && <span className="field-error">{errors.mode}</span>}
      </div>
      {mode !== 'manual' && (
        <div className="field">
          <label htmlFor="team-cap">Open tickets per agent at most (blank: no cap)</label>
          <input id="team-cap" type="number" min={1} value={cap} aria-invalid={errors.cap ? true : undefined} onChange={(e) => setCap(e.target.value)} />
          {errors.cap && <span className="field-error">{errors.cap}</span>}
        </div>
      )}
      <FormActions saving={saving} submitLabel={team ? 'Update Team' : 'Create Team'} onCancel={onCancel} />
    </form>
  );
}
