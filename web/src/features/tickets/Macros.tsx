import { useState } from 'react';
import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { toastShown } from '../../components/toastsSlice';
import { Modal } from '../../components/ui';
import { MESSAGE_MAX } from '#contract/tickets';
import type { Macro } from '#contract/responses';
import type { MacroInput } from '#contract/macros';
import { useCreateMacroMutation } from '../../entities/macro/api';
import { DialogFooter, MacroForm } from '../../entities/macro/MacroForm';
import { useActiveTeams } from '../../entities/team/api';
import { useApplyMacroMutation, useMacroPreviewQuery } from './api';

/** The composer's Macros menu (docs/macros.md): the macros the agent may apply, by name; choosing one opens its preview. */
export function MacroMenu({ macros, onChoose, isAdmin }: { macros: Macro[]; onChoose: (macro: Macro) => void; isAdmin: boolean }) {
  const [open, setOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  return (
    <div className="macro-menu">
      <button type="button" className="button button-secondary" aria-expanded={open} onClick={() => setOpen((shown) => !shown)}>
        Macros
      </button>
      {open && (
        <ul className="shortcode-suggestions" aria-label="Macros">
          {macros.length === 0 && <li className="muted">No macros yet</li>}
          <li>
            <button type="button" onClick={() => setCreating(true)}>
              New macro...
            </button>
          </li>
          {macros.map((macro) => (
            <li key={macro._id}>
              <button
                type="button"
                onClick={() => {
                  setOpen(false);
                  onChoose(macro);
                }}
              >
                <strong>#{macro.shortcode}</strong> {macro.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {creating && <NewMacroDialog isAdmin={isAdmin} onClose={() => setCreating(false)} />}
    </div>
  );
}

/** "New macro..." from the composer: the Macros page's form (docs/macros.md) in a dialog. */
function NewMacroDialog({ isAdmin, onClose }: { isAdmin: boolean; onClose: () => void }) {
  const [create, { isLoading }] = useCreateMacroMutation();
  const activeTeams = useActiveTeams();
  const [failure, setFailure] = useState<string | null>(null);
  const save = async (input: MacroInput) => {
    try {
      await create(input).unwrap();
      onClose();
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to save the macro'));
    }
  };
  return (
    <Modal title="New macro" onClose={onClose}>
      <MacroForm
        record={null}
        isAdmin={isAdmin}
        teams={activeTeams}
        saving={isLoading}
        error={failure}
        onSubmit={(input) => void save(input)}
        onCancel={onClose}
      />
    </Modal>
  );
}

/**
 * What the macro will do on this ticket before anything is sent: the reply with its variables filled
 * in (editable) and its actions in words. The server applies all of it or nothing and says which action it refused.
 */
export function MacroPreviewDialog({ ticketId, macro, onClose }: { ticketId: string; macro: Macro; onClose: () => void }) {
  const preview = useMacroPreviewQuery({ ticketId, macroId: macro._id });
  const [edited, setEdited] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [apply, { isLoading }] = useApplyMacroMutation();
  const dispatch = useAppDispatch();
  const reply = edited ?? preview.data?.reply ?? '';
  const confirm = async () => {
    if (!preview.data) return;
    try {
      await apply({ ticketId, macroId: macro._id, reply, version: preview.data.macro.version }).unwrap();
      dispatch(toastShown('success', `Applied macro "${preview.data.macro.name}"`));
      onClose();
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to apply the macro'));
    }
  };
  return (
    <Modal title={`Macro: ${macro.name}`} onClose={onClose}>
      <div className="form">
        {preview.isLoading && <p className="muted">Loading preview...</p>}
        {preview.isError && <p className="field-error">{errorMessage(preview.error, 'Failed to load the preview')}</p>}
        {preview.data && (
          <>
            <label htmlFor="macro-reply">Reply</label>
            <textarea id="macro-reply" value={reply} maxLength={MESSAGE_MAX} rows={5} onChange={(e) => setEdited(e.target.value)} />
            <p className="muted small">
              Then, as {preview.data.macro.name} (version {preview.data.macro.version}):
            </p>
            <ul aria-label="Macro actions">
              {preview.data.actions.length === 0 && <li className="muted">No actions: only the reply is sent.</li>}
              {preview.data.actions.map((action, index) => (
                <li key={index}>
                  {action.label}
                  {action.type === 'note' ? `: ${action.text}` : ''}
                </li>
              ))}
            </ul>
          </>
        )}
        <DialogFooter
          failure={failure}
          onCancel={onClose}
          busy={isLoading}
          disabled={!preview.data}
          busyLabel="Applying..."
          label="Apply macro"
          onConfirm={() => void confirm()}
        />
      </div>
    </Modal>
  );
}
