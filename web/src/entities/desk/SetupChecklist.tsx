import { useState } from 'react';
import { Link } from 'react-router';
import type { SetupStatus } from '#contract/responses';
import { Icon } from '../../components/icons';
import { Card } from '../../components/ui';
import { plural } from '../../lib/format';

interface Step {
  title: string;
  done: boolean;
  /** What is there once done; what it is for until then. */
  detail: string;
  to: string;
  action: string;
}

/** The steps of a new desk, in the order they make sense; each ticks itself from what the desk holds. */
export function setupSteps(setup: SetupStatus): Step[] {
  return [
    {
      title: 'Add a category',
      done: setup.categories > 0,
      detail:
        setup.categories > 0 ? plural(setup.categories, 'category', 'categories') : 'Customers choose one when they open a ticket; without one they cannot.',
      to: '/admin?tab=Categories',
      action: 'Add categories',
    },
    {
      title: 'Invite your agents',
      done: setup.agents > 0,
      detail: setup.agents > 0 ? plural(setup.agents, 'active agent') : 'Agents answer tickets; admins can too, but a desk is a team.',
      to: '/admin?tab=Users',
      action: 'Add agents',
    },
    {
      title: 'Set a support e-mail',
      done: setup.supportEmail,
      detail: setup.supportEmail ? 'Customers are told where to write' : 'The address customers are told to write to when they need a person.',
      to: '/settings',
      action: 'Open Settings',
    },
    {
      title: 'Connect Telegram',
      done: setup.telegramBot,
      detail: setup.telegramBot
        ? 'Customers can open tickets through the bot'
        : 'Customers can always use this web app; a bot token lets them write from Telegram as well.',
      to: '/settings',
      action: 'Add the bot token',
    },
    {
      title: 'Set service levels',
      done: setup.servicePolicies > 0,
      detail:
        setup.servicePolicies > 0
          ? plural(setup.servicePolicies, 'policy', 'policies')
          : 'Response and resolution targets, so the desk warns before a customer waits too long.',
      to: '/settings',
      action: 'Set targets',
    },
  ];
}

const HIDDEN_KEY = 'setupChecklistHidden';

/** Whether this browser's admin hid the checklist (a desk set up on purpose without, say, Telegram), and how to hide it. */
export function useSetupChecklistHidden(): [boolean, () => void] {
  const [hidden, setHidden] = useState(() => {
    try {
      return localStorage.getItem(HIDDEN_KEY) === 'true';
    } catch {
      return false;
    }
  });
  const hide = () => {
    setHidden(true);
    try {
      localStorage.setItem(HIDDEN_KEY, 'true');
    } catch {
      // private mode: hidden for this visit only
    }
  };
  return [hidden, hide];
}

/**
 * The admin's first screen on a new desk (docs/web.md): what to set up, ticked as it is done, and
 * how tickets will arrive. It goes once the desk has its first ticket and every step is done.
 */
export function SetupChecklist({ setup, onHide }: { setup: SetupStatus; onHide: () => void }) {
  const steps = setupSteps(setup);
  const left = steps.filter((step) => !step.done).length;
  return (
    <Card
      title="Set up your desk"
      className="setup-card"
      actions={
        <>
          <span className="muted">{left === 0 ? 'All set' : `${steps.length - left} of ${steps.length} done`}</span>
          <button type="button" className="button button-ghost button-small" onClick={onHide}>
            Hide
          </button>
        </>
      }
    >
      <ol className="setup-steps">
        {steps.map((step) => (
          <li key={step.title} className={step.done ? 'setup-step done' : 'setup-step'}>
            <span className="setup-tick" aria-hidden="true">
              {step.done ? <Icon name="check" size={14} /> : null}
            </span>
            <div className="setup-text">
              <strong>
                {step.title}
                <span className="visually-hidden">{step.done ? ' (done)' : ' (to do)'}</span>
              </strong>
              <span className="muted">{step.detail}</span>
            </div>
            {!step.done && (
              <Link className="button button-secondary button-small" to={step.to}>
                {step.action}
              </Link>
            )}
          </li>
        ))}
      </ol>
      <p className="muted setup-arrival">
        {setup.tickets === 0 ? 'No tickets yet. ' : ''}Customers open tickets by registering on this site, or by writing to the Telegram bot once it is
        connected; each arrives in Live Tickets at once. To look around a desk full of sample tickets first, start a demo desk beside this one:{' '}
        <code>DATA_DIR=./demo-data npm run demo</code>.
      </p>
    </Card>
  );
}
