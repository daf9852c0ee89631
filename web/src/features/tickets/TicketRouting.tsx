import { PRIORITIES } from '#contract/tickets';
import { Card } from '../../components/ui';
import { useTeamsQuery } from '../../entities/team/api';
import { useCategoriesQuery } from '../../entities/ticket/api';
import type { Ticket } from '../../entities/ticket/types';
import { TicketTags } from './TicketTags';

type Change = { team?: string | null; priority?: Ticket['priority']; category?: string };

/**
 * Where the ticket sits (staff, docs/teams.md): its team, priority, category and tags, each changed on its own.
 * A new priority or category makes the server choose the SLA policy again (docs/sla.md).
 */
export function TicketRouting({
  ticket,
  onChange,
  onTag,
}: {
  ticket: Ticket;
  onChange: (change: Change) => void;
  onTag: (tag: string, tagged: boolean) => void;
}) {
  const teams = useTeamsQuery().data?.teams ?? [];
  const categories = useCategoriesQuery().data?.categories ?? [];
  const teamGone = ticket.team !== null && !teams.some((team) => team._id === ticket.team!._id);
  const categoryGone = !categories.some((category) => category._id === ticket.category._id);
  return (
    <Card title="Routing">
      <div className="form">
        <div className="field">
          <label htmlFor="ticket-team">Team</label>
          <select id="ticket-team" value={ticket.team?._id ?? ''} onChange={(e) => onChange({ team: e.target.value || null })}>
            <option value="">No team</option>
            {teamGone && <option value={ticket.team!._id}>{ticket.team!.name}</option>}
            {teams.map((team) => (
              <option key={team._id} value={team._id}>
                {team.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="ticket-priority">Priority</label>
          <select id="ticket-priority" value={ticket.priority} onChange={(e) => onChange({ priority: e.target.value as Ticket['priority'] })}>
            {PRIORITIES.map((priority) => (
              <option key={priority} value={priority}>
                {priority}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="ticket-category">Category</label>
          <select id="ticket-category" value={ticket.category._id} onChange={(e) => onChange({ category: e.target.value })}>
            {categoryGone && <option value={ticket.category._id}>{ticket.category.name}</option>}
            {categories.map((category) => (
              <option key={category._id} value={category._id}>
                {category.name}
              </option>
            ))}
          </select>
        </div>
        <TicketTags ticket={ticket} onTag={onTag} />
      </div>
    </Card>
  );
}
