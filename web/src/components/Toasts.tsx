import { useEffect } from 'react';
import { useDispatch, useSelector } from 'react-redux';
import { type Toast, selectToasts, toastDismissed, toastDuration } from './toastsSlice';

const ICONS: Record<Toast['kind'], string> = { success: '✓', error: '!', warning: '⚠', info: 'i' };

function ToastItem({ toast }: { toast: Toast }) {
  const dispatch = useDispatch();
  useEffect(() => {
    const timer = setTimeout(() => dispatch(toastDismissed(toast.id)), toastDuration(toast.kind));
    return () => clearTimeout(timer);
  }, [dispatch, toast]);
  return (
    <div className={`toast toast-${toast.kind}`} role={toast.kind === 'error' ? 'alert' : 'status'}>
      <span className="toast-icon" aria-hidden="true">
        {ICONS[toast.kind]}
      </span>
      <span className="toast-message">{toast.message}</span>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => dispatch(toastDismissed(toast.id))}>
        ×
      </button>
    </div>
  );
}

/** The toast area of docs/product.md section 2: success, error, warning and info messages that go away. */
export function Toasts() {
  const toasts = useSelector(selectToasts);
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((toast) => (
        <ToastItem key={toast.id} toast={toast} />
      ))}
    </div>
  );
}
