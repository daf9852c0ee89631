import { createContext, useContext, useEffect } from 'react';

/** Set by the shell (Layout.tsx): a screen that shows one thing names it in the tab title, in place of the screen's name. */
export const PageTitleContext = createContext<(title: string | null) => void>(() => undefined);

/** Names the shown thing in the tab title while the screen is mounted ("#1042 Printer on fire"); null: the screen's name. */
export function usePageTitle(title: string | null): void {
  const setTitle = useContext(PageTitleContext);
  useEffect(() => {
    setTitle(title);
    return () => setTitle(null);
  }, [setTitle, title]);
}
