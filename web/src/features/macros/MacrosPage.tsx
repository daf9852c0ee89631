import { isStaff } from '#contract/users';
import type { Macro } from '#contract/responses';
import type { MacroInput } from '#contract/macros';
import { errorMessage } from '../../app/api';
import { useAppSelector } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { ListEditorDialogs, useListEditor } from '../../components/ListEditor';
import { AccessDenied, Badge, Banner, EmptyState, FlashBanner, PageHeader } from '../../components/ui';
import { useFlash } from '../../lib/flash';
import { fullName } from '../../lib/format';
import { selectUser } from '../../entities/session/sessionSlice';
import { useCreateMacroMutation, useDeleteMacroMutation, useMacrosQuery, useUpdateMacroMutation } from '../../entities/macro/api';
import { MacroForm } from '../../entities/macro/MacroForm';
import { useActiveTeams } from '../../entities/team/api';

/** A macro's actions in words, as the card lists them; a team by its name among `teams` (the active ones). */
export function actionWords(macro: Macro, teams: Array<{ _id: string; name: string }> = []): string[] {
  return macro.actions.map((action) => {
    switch (action.type) {
      case 'status':
        return `Set status to ${action.status.replace(/_/g, ' ')}`;
      case 'priority':
        return `Set priority to ${action.priority}`;
      case 'assign':
        return action.agentId === 'me' ? 'Assign to whoever applies it' : 'Assign to an agent';
      case 'note':
        return `Internal note: ${action.text}`;
      case 'team':
        return action.teamId === null
          ? 'Take out of its team'
          : `Put with the team ${teams.find((team) => team._id === action.teamId)?.name ?? '(archived or unknown)'}`;
      case 'tags':
        return [action.add.length > 0 ? `Add tags ${action.add.join(', ')}` : '', action.remove.length > 0 ? `Remove tags ${action.remove.join(', ')}` : '']
          .filter(Boolean)
          .join('; ');
    }
  });
}

function MacroCard({
  macro,
  teams,
  canChange,
  onEdit,
  onDelete,
}: {
  macro: Macro;
  teams: Array<{ _id: string; name: string }>;
  canChange: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <article className="canned-card" aria-label={`Macro ${macro.name}`}>
      <header className="admin-card-head">
        <div>
          <h2>{macro.name}</h2>
          <p className="mono">#{macro.shortcode}</p>
        </div>
        {canChange && (
          <div className="row-actions">
            <button type="button" className="icon-button" aria-label={`Edit macro ${macro.name}`} title="Edit" onClick={onEdit}>
              <Icon name="edit" size={16} />
            </button>
            <button type="button" className="icon-button danger" aria-label={`Delete macro ${macro.name}`} title="Delete" onClick={onDelete}>
              <Icon name="trash" size={16} />
            </button>
          </div>
        )}
      </header>
      {macro.reply ? <p className="clamp-3 preserve">{macro.reply}</p> : <p className="muted">No reply: it only acts.</p>}
      {macro.actions.length > 0 && (
        <ul className="small" aria-label={`Actions of ${macro.name}`}>
          {actionWords(macro, teams).map((words, index) => (
            <li key={index}>{words}</li>
          ))}
        </ul>
      )}
      <footer className="canned-meta small muted">
        <Badge variant={macro.shared ? 'default' : 'secondary'}>{macro.shared ? 'Shared' : 'Personal'}</Badge>
        <span>Version {macro.version}</span>
        <span>By {fullName(macro.owner)}</span>
      </footer>
    </article>
  );
}

/**
 * Macros (docs/macros.md): the staff member's own and the shared ones. A personal macro is its owner's to
 * change; a shared one is an admin's (the server refuses anyone else, so the buttons are not offered).
 */
export function MacrosPage() {
  const user = useAppSelector(selectUser);
  const staff = user ? isStaff(user.role) : false;
  const isAdmin = user?.role === 'admin';
  const list = useMacrosQuery(undefined, { skip: !staff });
  const activeTeams = useActiveTeams(!staff);
  const { flash, show, clear } = useFlash();
  const [createMacro, creating] = useCreateMacroMutation();
  const [updateMacro, updating] = useUpdateMacroMutation();
  const [deleteMacro, removing] = useDeleteMacroMutation();
  const editor = useListEditor<Macro, MacroInput>({
    create: (input) => createMacro(input).unwrap(),
    // The version the form was opened on: a macro changed by someone else since is refused, not overwritten.
    update: (macro, input) => updateMacro({ id: macro._id, version: macro.version, ...input }).unwrap(),
    remove: (macro) => deleteMacro(macro._id).unwrap(),
    notify: show,
    texts: {
      created: 'Macro created',
      updated: 'Macro updated',
      deleted: 'Macro deleted',
      saveFailed: { create: 'Failed to create the macro', update: 'Failed to update the macro' },
      deleteFailed: 'Failed to delete the macro',
    },
  });
  const { setEditing, setDeleting } = editor;
  if (!staff) return <AccessDenied>Access Denied: You must be an administrator or agent to access macros.</AccessDenied>;
  const macros = list.data?.macros ?? [];
  return (
    <div className="page">
      <PageHeader title="Macros" subtitle="A reply and ticket actions in one step; apply them from a ticket's Macros menu or with #shortcode.">
        <button
          type="button"
          className="button button-primary"
          onClick={() => {
            clear();
            setEditing('new');
          }}
        >
          <Icon name="plus" size={16} /> New Macro
        </button>
      </PageHeader>
      <FlashBanner flash={flash} onClose={clear} />
      {list.error ? <Banner kind="error">{errorMessage(list.error, 'Failed to load macros')}</Banner> : null}
      {list.isLoading ? (
        <p className="muted" role="status">
          Loading macros...
        </p>
      ) : macros.length === 0 ? (
        <EmptyState title="No macros yet" icon="canned">
          Create your first one: a reply and the ticket changes that go with it.
        </EmptyState>
      ) : (
        <div className="canned-grid">
          {macros.map((macro) => (
            <MacroCard
              teams={activeTeams}
              key={macro._id}
              macro={macro}
              canChange={macro.shared ? isAdmin : macro.owner._id === user?._id}
              onEdit={() => setEditing(macro)}
              onDelete={() => setDeleting(macro)}
            />
          ))}
        </div>
      )}
      <ListEditorDialogs
        editor={editor}
        titles={{ add: 'New macro', edit: 'Edit macro' }}
        confirmMessage="Are you sure you want to delete this macro? Tickets it was applied to keep their history."
        saving={creating.isLoading || updating.isLoading}
        removing={removing.isLoading}
        form={(dialog) => <MacroForm isAdmin={isAdmin} teams={activeTeams} {...dialog} />}
      />
    </div>
  );
}
