import { useCallback, useEffect } from 'react';
import { errorMessage } from '../../app/api';
import { useAppSelector } from '../../app/hooks';
import { selectUser } from '../../entities/session/sessionSlice';
import { useLiveStatus } from '../../lib/live';
import { type Delivery, type Outgoing, flushAllOutboxes, recoverSending } from '../../lib/outbox';
import { usePostMessageMutation } from './api';

/** No answer at all, or a proxy's word that the desk is out of reach: worth another try later. */
const UNREACHABLE = new Set<unknown>(['FETCH_ERROR', 'TIMEOUT_ERROR', 502, 503, 504]);

/** Posts a message under its own Idempotency-Key and says what came of it (`Delivery`). */
export function useDeliverMessage(): (message: Outgoing, files?: File[]) => Promise<Delivery> {
  const [postMessage] = usePostMessageMutation();
  return useCallback(
    async (message, files = []) => {
      const result = await postMessage({
        id: message.ticketId,
        ticketKey: message.ticketKey,
        content: message.content,
        isInternal: message.isInternal,
        files,
        key: message.key,
      });
      if (!('error' in result)) return 'sent';
      const status = (result.error as { status?: unknown }).status;
      // 202: stored, the server's views lag behind; the live channel brings it.
      if (status === 202) return 'sent';
      if (UNREACHABLE.has(status)) return 'unreachable';
      return { refused: errorMessage(result.error, 'Failed to send message') };
    },
    [postMessage],
  );
}

/**
 * Sends what the outbox holds whenever the connection may be back: the browser reports being online,
 * or the live channel is connected (and caught up) again, at start too. Mounted once, by the shell, so
 * a message waits for the connection and not for its ticket to be opened again.
 */
export function useOutboxSender(): void {
  const userId = useAppSelector(selectUser)?._id;
  const deliver = useDeliverMessage();
  const live = useLiveStatus();
  useEffect(() => {
    if (!userId) return undefined;
    const flush = () => {
      // Sends a reload or a closed tab cut short join the queues first (lib/outbox.ts, `noteSending`).
      recoverSending(userId);
      void flushAllOutboxes(userId, deliver);
    };
    if (live === 'connected') flush();
    window.addEventListener('online', flush);
    return () => window.removeEventListener('online', flush);
  }, [userId, deliver, live]);
}
