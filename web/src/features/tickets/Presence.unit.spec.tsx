/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { render, screen } from '@testing-library/react';
import { PresenceLine, PresenceMarker } from './Presence';

const BOB = { userId: 'u-bob', firstName: 'Bob', lastName: 'Tester', replying: false };
const DANA = { userId: 'u-dana', firstName: 'Dana', lastName: 'Agent', replying: false };

describe('Staff presence', () => {
  it('when nobody else is on the ticket, then nothing shows', () => {
    const { container } = render(
      <>
        <PresenceLine viewers={[]} />
        <PresenceMarker viewers={[]} />
      </>,
    );
    expect(container).toBeEmptyDOMElement();
  });

  it('when others view the ticket, then the line names them, and says who is replying now', () => {
    const { rerender } = render(<PresenceLine viewers={[BOB, DANA]} />);
    expect(screen.getByRole('status', { name: 'Other staff on this ticket' })).toHaveTextContent('Also viewing: Bob Tester, Dana Agent');
    rerender(<PresenceLine viewers={[{ ...BOB, replying: true }, DANA]} />);
    expect(screen.getByRole('status')).toHaveTextContent('Also viewing: Bob Tester, Dana Agent — Bob Tester is replying now');
    rerender(
      <PresenceLine
        viewers={[
          { ...BOB, replying: true },
          { ...DANA, replying: true },
        ]}
      />,
    );
    expect(screen.getByRole('status')).toHaveTextContent('Bob Tester, Dana Agent are replying now');
  });

  it('when someone is on a Live Tickets card, then the marker names who replies (else who views), with everyone on hover', () => {
    const { rerender } = render(<PresenceMarker viewers={[BOB]} />);
    expect(screen.getByText('Viewing: Bob')).toHaveAttribute('title', 'Viewing now: Bob Tester');
    rerender(<PresenceMarker viewers={[BOB, { ...DANA, replying: true }]} />);
    expect(screen.getByText('Replying: Dana')).toHaveAttribute('title', 'Replying now: Dana Agent; Viewing now: Bob Tester, Dana Agent');
  });
});
