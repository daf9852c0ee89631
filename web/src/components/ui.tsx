import { type ReactNode, useEffect, useId, useRef } from 'react';
import { Icon, type IconName } from './icons';

export type BadgeVariant = 'destructive' | 'default' | 'outline' | 'secondary';

export function Badge({
  variant = 'secondary',
  children,
  className = '',
}: {
  variant?: BadgeVariant | 'warning' | 'success' | 'live';
  children: ReactNode;
  className?: string;
}) {
  return <span className={`badge badge-${variant} ${className}`.trim()}>{children}</span>;
}

export function Banner({ kind, children }: { kind: 'error' | 'success' | 'info' | 'warning'; children: ReactNode }) {
  return (
    <div className={`banner banner-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function StatCard({
  label,
  value,
  hint,
  icon,
  tone = 'neutral',
}: {
  label: string;
  value: ReactNode;
  hint?: string;
  icon?: IconName;
  tone?: 'neutral' | 'danger' | 'primary' | 'success' | 'warning';
}) {
  return (
    <section className={`stat-card stat-${tone}`} aria-label={label}>
      <div className="stat-head">
        <h2>{label}</h2>
        {icon && <Icon name={icon} />}
      </div>
      <p className="stat-value">{value}</p>
      {hint && <p className="stat-hint">{hint}</p>}
    </section>
  );
}

export function EmptyState({ title, children, icon = 'ticket' }: { title: string; children?: ReactNode; icon?: IconName }) {
  return (
    <div className="empty-state">
      <Icon name={icon} size={36} />
      {/* h2: an empty state sits right under the page's h1 or in a card, and headings must not skip a level. */}
      <h2 className="empty-state-title">{title}</h2>
      {children && <p className="muted">{children}</p>}
    </div>
  );
}

export function LoadingScreen({ text = 'Loading...' }: { text?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {text}
    </div>
  );
}

const openModals: object[] = [];

/** A modal dialog: Escape and the backdrop close it, focus moves in and returns when it closes. */
const FOCUSABLE =
  'a[href], button:not(:disabled), input:not(:disabled):not([type="hidden"]), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';

export function Modal({ title, onClose, children, wide = false }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  // The latest onClose, so a parent's new function on each render does not reset focus.
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const token = {};
    openModals.push(token);
    panel.current?.querySelector<HTMLElement>('input:not(:disabled), select:not(:disabled), textarea, button:not(.modal-close)')?.focus();
    // Only the topmost dialog answers Escape, so closing a confirmation keeps the form beneath it.
    const onKey = (event: KeyboardEvent) => {
      if (openModals.at(-1) !== token) return;
      if (event.key === 'Escape') close.current();
      // aria-modal: Tab and Shift+Tab go round the dialog's own controls, never to the page behind it.
      else if (event.key === 'Tab' && panel.current) {
        const stops = [...panel.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => !element.closest('[hidden], [aria-hidden="true"]'));
        const first = stops[0];
        const last = stops.at(-1);
        if (!first || !last) return;
        const inside = panel.current.contains(document.activeElement);
        if (event.shiftKey && (document.activeElement === first || !inside)) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && (document.activeElement === last || !inside)) {
          event.preventDefault();
          first.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      openModals.splice(openModals.indexOf(token), 1);
      before?.focus?.();
    };
  }, []);
  return (
    <div className="modal-backdrop" onMouseDown={(event) => event.target === event.currentTarget && close.current()}>
      <div ref={panel} className={`modal ${wide ? 'modal-wide' : ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <header className="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon-button modal-close" aria-label="Close" onClick={onClose}>
            <Icon name="close" />
          </button>
        </header>
        {children}
      </div>
    </div>
  );
}

/** A field's label with its live 'n/max' counter, marked when over the limit. */
export function CountedLabel({ htmlFor, label, length, max }: { htmlFor: string; label: string; length: number; max: number }) {
  return (
    <div className="label-row">
      <label htmlFor={htmlFor}>{label}</label>
      <span className={`counter ${length > max ? 'over' : ''}`}>
        {length}/{max}
      </span>
    </div>
  );
}

export function Card({ title, actions, children, className = '' }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string }) {
  const titleId = useId();
  return (
    <section className={`card ${className}`.trim()} aria-labelledby={title ? titleId : undefined}>
      {(title || actions) && (
        <header className="card-header">
          {title && <h2 id={titleId}>{title}</h2>}
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

/** A yes/no question in the app's own dialog (docs/product.md section 8's confirmations), never a silent action. */
export function ConfirmDialog({
  message,
  confirmLabel = 'Delete',
  busy = false,
  onConfirm,
  onCancel,
}: {
  message: string;
  confirmLabel?: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Modal title="Please confirm" onClose={onCancel}>
      <p className="confirm-text">{message}</p>
      <div className="form-actions">
        <button type="button" className="button button-secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="button button-danger" disabled={busy} onClick={onConfirm}>
          {busy ? 'Working...' : confirmLabel}
        </button>
      </div>
    </Modal>
  );
}

/** What a screen shows to someone whose role may not use it (docs/product.md section 2). */
export function AccessDenied({ children }: { children: string }) {
  return (
    <div className="page">
      <div className="banner banner-error access-denied" role="alert">
        <Icon name="lock" />
        <span>{children}</span>
      </div>
    </div>
  );
}

/** A banner that can be closed; `kind` picks green (success) or red (error). */
export function FlashBanner({ flash, onClose }: { flash: { kind: 'success' | 'error'; text: string } | null; onClose?: () => void }) {
  if (!flash) return null;
  return (
    <div className={`banner banner-${flash.kind} flash`} role={flash.kind === 'error' ? 'alert' : 'status'}>
      <span>{flash.text}</span>
      {onClose && (
        <button type="button" className="icon-button" aria-label="Dismiss message" onClick={onClose}>
          <Icon name="close" size={16} />
        </button>
      )}
    </div>
  );
}

/** A form's Cancel and submit buttons; the submit reads 'Saving...' while the form is sent. */
export function FormActions({ saving, submitLabel, onCancel, children }: { saving: boolean; submitLabel: string; onCancel: () => void; children?: ReactNode }) {
  return (
    <div className="form-actions">
      {children}
      <button type="button" className="button button-secondary" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="button button-primary" disabled={saving}>
        {saving ? 'Saving...' : submitLabel}
      </button>
    </div>
  );
}

/** A screen's title, the line under it, and its main action on the right. */
export function PageHeader({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="muted">{subtitle}</p>}
      </div>
      {children}
    </header>
  );
}

/** The order and active fields the admin forms for ordered records share (categories, bot commands). */
export function OrderAndActiveFields({
  idPrefix,
  order,
  isActive,
  orderError,
  onOrder,
  onActive,
}: {
  idPrefix: string;
  order: string | number;
  isActive: boolean;
  orderError: string | undefined;
  onOrder: (value: string) => void;
  onActive: (value: boolean) => void;
}) {
  return (
    <>
      <div className="field">
        <label htmlFor={`${idPrefix}-order`}>Order</label>
        <input
          id={`${idPrefix}-order`}
          type="number"
          min={0}
          step={1}
          value={order}
          aria-invalid={orderError ? true : undefined}
          onChange={(e) => onOrder(e.target.value)}
        />
        {orderError && <span className="field-error">{orderError}</span>}
      </div>
      <label className="toggle field-toggle">
        <input type="checkbox" checked={isActive} onChange={(e) => onActive(e.target.checked)} />
        Active
      </label>
    </>
  );
}

/** A scrolling table with a header row of column names; the rows are the children. */
export function DataTable({ columns, label, children }: { columns: string[]; label?: string; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column}>{column}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A labelled one-line text box with its error under it, marked invalid while the error stands. */
export function TextField({
  id,
  label,
  value,
  maxLength,
  error,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  maxLength?: number;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} maxLength={maxLength} value={value} aria-invalid={error ? true : undefined} onChange={(e) => onChange(e.target.value)} />
      {error && <span className="field-error">{error}</span>}
    </div>
  );
}

/**
 * A table row's Edit and Delete icon buttons (`name` in their labels, `what` in their tooltips). A
 * delete that is not allowed is disabled and says why; a disabled button gets no hover events, so the
 * tooltip sits on a wrapper.
 */
export function RowEditDelete({
  name,
  what,
  onEdit,
  onDelete,
  deleteRefusal = null,
}: {
  name: string;
  what: string;
  onEdit: () => void;
  onDelete: () => void;
  deleteRefusal?: string | null;
}) {
  return (
    <div className="row-actions">
      <button type="button" className="icon-button" aria-label={`Edit ${name}`} title={`Edit ${what}`} onClick={onEdit}>
        <Icon name="edit" size={16} />
      </button>
      <span title={deleteRefusal ?? `Delete ${what}`}>
        <button type="button" className="icon-button danger" aria-label={`Delete ${name}`} disabled={deleteRefusal !== null} onClick={onDelete}>
          <Icon name="trash" size={16} />
        </button>
      </span>
    </div>
  );
}
