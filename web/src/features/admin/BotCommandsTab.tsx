import { useState } from 'react';
import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { toastShown } from '../../components/toastsSlice';
import { ListEditorDialogs, useListEditor } from '../../components/ListEditor';
import { Badge, Banner, ConfirmDialog, EmptyState, Modal } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import {
  type BotCommand,
  type BotCommandInput,
  type BotMessages,
  type TelegramStatus,
  useBotCommandsQuery,
  useBotSettingsQuery,
  useCreateBotCommandMutation,
  useDeleteBotCommandMutation,
  useResetBotSettingsMutation,
  useSyncBotCommandsMutation,
  useTelegramStatusQuery,
  useUpdateBotCommandMutation,
  useUpdateBotSettingsMutation,
} from './api';
import { BotCommandForm } from './BotCommandForm';
import { BotMessagesForm } from './BotMessagesForm';

export type BotConnection = 'unknown' | 'connected' | 'error';

/** docs/product.md section 4: unknown until the status is known, connected when it answers active, else error. */
export function botConnection(status: TelegramStatus | undefined, failed: boolean): BotConnection {
  if (failed) return 'error';
  if (!status) return 'unknown';
  return status.status === 'active' ? 'connected' : 'error';
}

const CONNECTION_TEXT: Record<BotConnection, string> = { unknown: 'Unknown', connected: 'Connected', error: 'Error' };

export function BotStatusLine({ connection, status }: { connection: BotConnection; status: TelegramStatus | undefined }) {
  return (
    <p className={`bot-status bot-${connection}`} role="status">
      <span className="status-dot" aria-hidden="true" />
      Bot status: <strong>{CONNECTION_TEXT[connection]}</strong>
      {connection === 'connected' && status?.botUsername && <span className="muted"> as @{status.botUsername}</span>}
      {connection === 'error' && status?.error && <span className="muted"> ({status.error})</span>}
    </p>
  );
}

export function BotCommandCard({ command, onEdit, onDelete }: { command: BotCommand; onEdit: () => void; onDelete: () => void }) {
  return (
    <article className="admin-card" aria-label={`/${command.command}`}>
      <header className="admin-card-head">
        <h3 className="mono">/{command.command}</h3>
        <span className="badges">
          {command.isSystem && <Badge variant="default">System</Badge>}
          <Badge variant={command.isActive ? 'success' : 'outline'}>{command.isActive ? 'Active' : 'Inactive'}</Badge>
        </span>
      </header>
      <p>{command.description}</p>
      <p className="small muted">
        Handler: {command.handler} · Order: {command.order}
      </p>
      {command.handler === 'custom' && command.response && <p className="small preserve clamp-3">{command.response}</p>}
      <footer className="admin-card-actions">
        <button type="button" className="button button-ghost button-small" aria-label={`Edit command ${command.command}`} onClick={onEdit}>
          <Icon name="edit" size={14} /> Edit
        </button>
        {!command.isSystem && (
          <button type="button" className="button button-ghost button-small danger" aria-label={`Delete command ${command.command}`} onClick={onDelete}>
            <Icon name="trash" size={14} /> Delete
          </button>
        )}
      </footer>
    </article>
  );
}

export function BotCommandsTab() {
  const dispatch = useAppDispatch();
  const commands = useBotCommandsQuery();
  const settings = useBotSettingsQuery();
  const status = useTelegramStatusQuery();
  const [editingMessages, setEditingMessages] = useState(false);
  const [confirmingReset, setConfirmingReset] = useState(false);
  const [createCommand, creating] = useCreateBotCommandMutation();
  const [updateCommand, updating] = useUpdateBotCommandMutation();
  const [deleteCommand, removing] = useDeleteBotCommandMutation();
  const [syncCommands, syncing] = useSyncBotCommandsMutation();
  const [updateMessages, savingMessages] = useUpdateBotSettingsMutation();
  const [resetMessages, resetting] = useResetBotSettingsMutation();

  const closeAll = () => {
    editor.close();
    setEditingMessages(false);
  };
  const editor = useListEditor<BotCommand, BotCommandInput>({
    create: (input) => createCommand(input).unwrap(),
    update: (command, input) => updateCommand({ id: command._id, ...input }).unwrap(),
    remove: (command) => deleteCommand(command._id).unwrap(),
    notify: (kind, text) => dispatch(toastShown(kind, text)),
    texts: {
      created: 'Bot command created successfully',
      updated: 'Bot command updated successfully',
      deleted: 'Bot command deleted successfully',
      saveFailed: 'Failed to create or update bot command',
      deleteFailed: 'Failed to delete bot command',
    },
    closeAfterSave: closeAll,
  });
  const { setEditing, setDeleting, formError, setFormError } = editor;
  const sync = async () => {
    try {
      await syncCommands().unwrap();
      dispatch(toastShown('success', 'Bot commands synced successfully with Telegram!'));
    } catch (failure) {
      dispatch(toastShown('error', errorMessage(failure, 'Failed to sync bot commands')));
    }
  };
  const saveMessages = async (messages: BotMessages) => {
    try {
      await updateMessages(messages).unwrap();
      dispatch(toastShown('success', 'Bot messages updated successfully!'));
      closeAll();
    } catch (failure) {
      setFormError(errorMessage(failure, 'Failed to update bot messages'));
    }
  };
  const reset = async () => {
    setConfirmingReset(false);
    try {
      await resetMessages().unwrap();
      dispatch(toastShown('success', 'Bot messages reset to their defaults'));
      closeAll();
    } catch (failure) {
      setFormError(errorMessage(failure, 'Failed to update bot messages'));
    }
  };
  if (commands.error) console.error('Bot commands failed to load', commands.error);
  const lastSynced = settings.data?.settings.lastSyncedAt;

  return (
    <div className="admin-tab">
      <div className="toolbar">
        <div>
          <BotStatusLine connection={botConnection(status.data, status.isError)} status={status.data} />
          <p className="muted small">{lastSynced ? `Last synced with Telegram ${formatDateTime(lastSynced)}` : 'Not synced with Telegram yet'}</p>
        </div>
        <div className="toolbar-actions">
          <button type="button" className="button button-secondary" disabled={!settings.data} onClick={() => setEditingMessages(true)}>
            <Icon name="canned" size={16} /> Edit Bot Messages
          </button>
          <button type="button" className="button button-secondary" disabled={syncing.isLoading} onClick={() => void sync()}>
            <Icon name="refresh" size={16} /> {syncing.isLoading ? 'Syncing...' : 'Sync with Telegram'}
          </button>
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
            <Icon name="plus" size={16} /> Add Command
          </button>
        </div>
      </div>
      {commands.error ? <Banner kind="error">{errorMessage(commands.error, 'Failed to load admin data')}</Banner> : null}
      {commands.isLoading && <p className="muted">Loading bot commands...</p>}
      {commands.data && commands.data.commands.length === 0 && <EmptyState title="No bot commands" icon="telegram" />}
      <div className="admin-grid">
        {commands.data?.commands.map((command) => (
          <BotCommandCard key={command._id} command={command} onEdit={() => setEditing(command)} onDelete={() => setDeleting(command)} />
        ))}
      </div>
      {editingMessages && settings.data && (
        <Modal title="Edit Bot Messages" onClose={closeAll} wide>
          <BotMessagesForm
            messages={settings.data.settings.messages}
            saving={savingMessages.isLoading || resetting.isLoading}
            error={formError}
            onSubmit={(messages) => void saveMessages(messages)}
            onReset={() => setConfirmingReset(true)}
            onCancel={closeAll}
          />
        </Modal>
      )}
      {confirmingReset && (
        <ConfirmDialog
          message="Replace all nine bot messages with their default texts?"
          confirmLabel="Reset"
          busy={resetting.isLoading}
          onConfirm={() => void reset()}
          onCancel={() => setConfirmingReset(false)}
        />
      )}
      <ListEditorDialogs
        editor={editor}
        titles={{ add: 'Add Bot Command', edit: 'Edit Bot Command' }}
        confirmMessage="Are you sure you want to delete this bot command? This action cannot be undone."
        saving={creating.isLoading || updating.isLoading}
        removing={removing.isLoading}
        onClose={closeAll}
        form={({ record, ...dialog }) => <BotCommandForm command={record} {...dialog} />}
      />
    </div>
  );
}
