import { useCallback, useEffect, useState } from 'react';

export interface Flash {
  kind: 'success' | 'error';
  text: string;
}

/**
 * The success or error line a screen shows after an action. With `vanishAfterMs` it goes away on its
 * own (docs/product.md section 8: the settings messages vanish after 5 s); otherwise it stays until closed or
 * replaced by the next one.
 */
export function useFlash(vanishAfterMs?: number) {
  const [flash, setFlash] = useState<Flash | null>(null);
  useEffect(() => {
    if (!flash || vanishAfterMs === undefined) return;
    const timer = setTimeout(() => setFlash(null), vanishAfterMs);
    return () => clearTimeout(timer);
  }, [flash, vanishAfterMs]);
  const show = useCallback((kind: Flash['kind'], text: string) => setFlash({ kind, text }), []);
  const clear = useCallback(() => setFlash(null), []);
  return { flash, show, clear };
}
