import { Fragment, useState } from 'react';
import { Modal } from '../../components/ui';
import { SHORTCUTS, focusSearch, useShortcuts } from '../../lib/shortcuts';
import { openSearch } from '../../features/search/SearchDialog';

/** `?` anywhere opens the list of keyboard shortcuts; `/` focuses the screen's search box, or opens the desk's search where the screen has none. */
export function KeyboardHelp() {
  const [open, setOpen] = useState(false);
  useShortcuts({ '?': () => setOpen(true), '/': () => focusSearch() || openSearch() });
  if (!open) return null;
  return (
    <Modal title="Keyboard shortcuts" onClose={() => setOpen(false)}>
      <table className="table shortcuts-table">
        <caption className="visually-hidden">Keyboard shortcuts</caption>
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">Action</th>
            <th scope="col">Where</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((shortcut) => (
            <tr key={`${shortcut.keys.join('+')}-${shortcut.action}`}>
              <td>
                {shortcut.keys.map((key, index) => (
                  <Fragment key={key}>
                    {index > 0 && ' + '}
                    <kbd>{key}</kbd>
                  </Fragment>
                ))}
              </td>
              <td>{shortcut.action}</td>
              <td className="muted">{shortcut.where}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="form-actions">
        <button type="button" className="button button-primary" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
    </Modal>
  );
}
