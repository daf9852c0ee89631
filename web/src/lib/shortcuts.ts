import { useEffect, useRef } from 'react';

/**
 * Single-key shortcuts (issue 41), as help desks have them: they act only when no text field, list
 * box or dialog has the keyboard and no modifier is held, so typing never triggers one.
 */
export type ShortcutMap = Partial<Record<string, () => void>>;

const typingInto = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

export function useShortcuts(shortcuts: ShortcutMap): void {
  // The latest handlers without re-subscribing on every render.
  const latest = useRef(shortcuts);
  latest.current = shortcuts;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typingInto(event.target)) return;
      if (document.querySelector('[role="dialog"]')) return;
      const action = latest.current[event.key];
      if (!action) return;
      event.preventDefault();
      action();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

/** The shortcuts the `?` dialog lists: the keys and what they do. */
export const SHORTCUTS: ReadonlyArray<{ keys: string[]; action: string; where: string }> = [
  { keys: ['?'], action: 'Show keyboard shortcuts', where: 'Anywhere' },
  { keys: ['/'], action: "Focus the screen's search, or search the desk", where: 'Anywhere' },
  { keys: ['Ctrl', 'K'], action: 'Search the desk', where: 'Anywhere' },
  { keys: ['j'], action: 'Next ticket', where: 'Live Tickets and a ticket' },
  { keys: ['k'], action: 'Previous ticket', where: 'Live Tickets and a ticket' },
  { keys: ['Enter'], action: 'Open the focused ticket', where: 'Live Tickets' },
  { keys: ['r'], action: 'Reply (focus the message box)', where: 'A ticket' },
  { keys: ['n'], action: 'Write an internal note', where: 'A ticket (staff)' },
  { keys: ['Enter'], action: 'Send', where: 'Message box' },
  { keys: ['Shift', 'Enter'], action: 'New line', where: 'Message box' },
  { keys: ['Escape'], action: 'Leave the message box', where: 'Message box' },
  { keys: ['a'], action: 'Assign to me', where: 'A ticket (staff)' },
  { keys: ['s'], action: 'Change status', where: 'A ticket (staff)' },
];

/** Focuses the screen's search box (its `data-search` field), if it has one. */
/** Focuses the screen's own search box; false when the screen has none. */
export function focusSearch(): boolean {
  const box = document.querySelector<HTMLInputElement>('[data-search]');
  box?.focus();
  return box !== null;
}
