import { useCallback, useEffect, useRef, useState } from 'react';
import { TYPING_REFRESH_MS, TYPING_STALE_MS, TYPING_TIMEOUT_MS } from '#contract/live';
import { emitLive, onLive } from '../../lib/live';

interface TypingEvent {
  ticketId: string;
  userId: string;
  isTyping: boolean;
  user?: { firstName: string; lastName: string; role: string };
}

/**
 * Who else is typing on this ticket, and a function to report one's own typing. The typist says
 * "typing" again every second while keys keep coming and "stopped" 2 s after the last one
 * (docs/product.md section 9); a watcher drops a typist who stopped without saying so (a dropped
 * connection) once a refresh is overdue.
 */
export function useTyping(ticketId: string | undefined, myId: string) {
  const [typers, setTypers] = useState<Record<string, string>>({});
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const myTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const typing = useRef(false);
  const lastSaid = useRef(0);

  useEffect(() => {
    const clearTimers = timers.current;
    const drop = (userId: string) => {
      clearTimeout(clearTimers.get(userId));
      clearTimers.delete(userId);
      setTypers(({ [userId]: _gone, ...rest }) => rest);
    };
    const stop = onLive<TypingEvent>('user_typing', (event) => {
      if (event.ticketId !== ticketId || event.userId === myId) return;
      if (!event.isTyping) return drop(event.userId);
      setTypers((current) => ({ ...current, [event.userId]: event.user?.firstName || 'Someone' }));
      clearTimeout(clearTimers.get(event.userId));
      clearTimers.set(
        event.userId,
        setTimeout(() => drop(event.userId), TYPING_STALE_MS),
      );
    });
    return () => {
      stop();
      clearTimers.forEach((timer) => clearTimeout(timer));
      clearTimers.clear();
      setTypers({});
    };
  }, [ticketId, myId]);

  const report = useCallback(
    (isTyping: boolean, isInternal = false) => {
      if (!ticketId) return;
      clearTimeout(myTimer.current);
      if (isTyping) {
        if (!typing.current || Date.now() - lastSaid.current >= TYPING_REFRESH_MS) {
          emitLive('typing', { ticketId, userId: myId, isTyping: true, isInternal });
          lastSaid.current = Date.now();
        }
        typing.current = true;
        myTimer.current = setTimeout(() => {
          typing.current = false;
          emitLive('typing', { ticketId, userId: myId, isTyping: false, isInternal });
        }, TYPING_TIMEOUT_MS);
      } else if (typing.current) {
        typing.current = false;
        emitLive('typing', { ticketId, userId: myId, isTyping: false, isInternal });
      }
    },
    [ticketId, myId],
  );
  useEffect(() => () => clearTimeout(myTimer.current), []);
  return { typers: Object.values(typers), reportTyping: report };
}

export function typingText(names: string[]): string | null {
  if (names.length === 0) return null;
  if (names.length === 1) return `${names[0]} is typing...`;
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)} are typing...`;
}
