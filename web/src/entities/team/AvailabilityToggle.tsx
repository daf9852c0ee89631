import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { toastShown } from '../../components/toastsSlice';
import { useEffect } from 'react';
import { useAvailabilityQuery, useReportActivityMutation, useSetAvailabilityMutation } from './api';

export const AVAILABILITY_LABEL = { available: 'Available', away: 'Away', offline: 'Offline' } as const;

/** The staff member's own Available / Away switch, showing Offline too (docs/teams.md): Away and Offline take them out of their teams' automatic assignment. */
export function AvailabilityToggle({ compact }: { compact: boolean }) {
  const dispatch = useAppDispatch();
  // Read again now and then: the desk sets idle staff Away, and another device's sign-out sets them Offline.
  const { data } = useAvailabilityQuery(undefined, { pollingInterval: 60_000 });
  useActivityReports(data?.availability === 'available');
  const [setAvailability, setting] = useSetAvailabilityMutation();
  if (!data) return null;
  const current = data.availability;
  const next = current === 'available' ? 'away' : 'available';
  const change = async () => {
    try {
      await setAvailability(next).unwrap();
    } catch (error) {
      dispatch(toastShown('error', errorMessage(error, 'Failed to change availability')));
    }
  };
  return (
    <button
      type="button"
      className={`button button-ghost button-small availability availability-${current}`}
      disabled={setting.isLoading}
      onClick={() => void change()}
      aria-label={`Availability: ${AVAILABILITY_LABEL[current]}`}
      title={`You are ${AVAILABILITY_LABEL[current]}; click to be ${AVAILABILITY_LABEL[next]}`}
    >
      <span className="availability-dot" aria-hidden="true" />
      {!compact && AVAILABILITY_LABEL[current]}
    </button>
  );
}

/** At most one report a minute: the idle time is counted in minutes, and each report may be an event on the log. */
const REPORT_EVERY_MS = 60_000;
const INPUT_EVENTS = ['pointerdown', 'keydown', 'wheel', 'touchstart'] as const;

/**
 * Reports the person's input in this tab while they are Available (docs/teams.md, "Away after an idle time"):
 * what they do, not what the tab does (an open tab polls and keeps its socket without anyone there).
 */
function useActivityReports(available: boolean) {
  const [report] = useReportActivityMutation();
  useEffect(() => {
    if (!available) return;
    let last = 0;
    const seen = () => {
      if (Date.now() - last < REPORT_EVERY_MS) return;
      last = Date.now();
      void report();
    };
    seen();
    for (const type of INPUT_EVENTS) window.addEventListener(type, seen, { passive: true });
    return () => {
      for (const type of INPUT_EVENTS) window.removeEventListener(type, seen);
    };
  }, [available, report]);
}
