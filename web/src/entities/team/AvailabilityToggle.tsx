import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { toastShown } from '../../components/toastsSlice';
import { useAvailabilityQuery, useSetAvailabilityMutation } from './api';

export const AVAILABILITY_LABEL = { available: 'Available', away: 'Away' } as const;

/** The staff member's own Available / Away switch (docs/teams.md): Away takes them out of their teams' automatic assignment. */
export function AvailabilityToggle({ compact }: { compact: boolean }) {
  const dispatch = useAppDispatch();
  const { data } = useAvailabilityQuery();
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
