/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DEFAULT_SLA_SETTINGS, type SlaSettings } from '#contract/sla';
import { renderWeb } from '../../test/render';
import { ClocksForm } from './SlaSettingsForm';

function renderClocks() {
  const save = jest.fn<Promise<unknown>, [SlaSettings]>(async () => ({}));
  renderWeb(<ClocksForm document={DEFAULT_SLA_SETTINGS} save={save} saving={false} />);
  return { save, user: userEvent.setup() };
}

describe('SLA clock settings', () => {
  it('when the warning share is out of range, then the schema message shows by the box and nothing is sent', async () => {
    const { save, user } = renderClocks();
    await user.clear(screen.getByLabelText('Warn the agent at (% of the target)'));
    await user.type(screen.getByLabelText('Warn the agent at (% of the target)'), '100');
    await user.click(screen.getByRole('button', { name: 'Save Clock Settings' }));
    expect(screen.getByText('warnPercent is at most 99')).toBeInTheDocument();
    expect(screen.getByLabelText('Warn the agent at (% of the target)')).toHaveAttribute('aria-invalid', 'true');
    expect(save).not.toHaveBeenCalled();
  });

  it('when a pausing status is ticked and the share changed, then the whole document is sent with them', async () => {
    const { save, user } = renderClocks();
    await user.click(screen.getByLabelText('in progress'));
    await user.clear(screen.getByLabelText('Warn the agent at (% of the target)'));
    await user.type(screen.getByLabelText('Warn the agent at (% of the target)'), '70');
    await user.click(screen.getByRole('button', { name: 'Save Clock Settings' }));
    expect(save).toHaveBeenCalledWith({ ...DEFAULT_SLA_SETTINGS, pauseStatuses: ['pending_customer', 'in_progress'], warnPercent: 70 });
    expect(await screen.findByText('Clock settings saved')).toBeInTheDocument();
  });
});
