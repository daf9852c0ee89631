import { type ReactNode, useEffect, useId, useRef } from 'react';
import { Icon, type IconName } from './icons';

export type BadgeVariant = 'destructive' | 'default' | 'outline' | 'secondary';

export function Badge({ variant = 'secondary', children, className = '' }: { variant?: BadgeVariant | 'warning' | 'success' | 'live'; children: ReactNode; className?: string }) {
  return <span className={`badge badge-${variant} ${className}`.trim()}>{children}</span>;
}

export function Banner({ kind, children }: { kind: 'error' | 'success' | 'info' | 'warning'; children: ReactNode }) {
  return (
    <div className={`banner banner-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function StatCard({ label, value, hint, icon, tone = 'neutral' }: { label: string; value: ReactNode; hint?: string; icon?: IconName; tone?: 'neutral' | 'danger' | 'primary' | 'success' | 'warning' }) {
  return (
    <section className={`stat-card stat-${tone}`} aria-label={label}>
      <div className="stat-head">
        <h3>{label}</h3>
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
      <h3>{title}</h3>
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

/** A modal dialog: Escape and the backdrop close it, focus moves in and returns when it closes. */
export function Modal({ title, onClose, children, wide = false }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    panel.current?.querySelector<HTMLElement>('input, select, textarea, button:not(.modal-close)')?.focus();
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      before?.focus?.();
    };
  }, [onClose]);
  return (
    <div className="modal-backdrop" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
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
  return (
    <section className={`card ${className}`.trim()}>
      {(title || actions) && (
        <header className="card-header">
          {title && <h2>{title}</h2>}
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}
