import { useEffect, useState } from 'react';
import { SatisfactionDetails, SatisfactionPrompt } from '../../entities/satisfaction/SatisfactionPrompt';
import { SlaDetails } from '../../entities/sla/SlaDetails';
import { Link, useNavigate, useParams } from 'react-router';
import { outcomeSchema } from '#contract/tickets';
import { MESSAGE_MAX, OUTCOME_MAX } from '#contract/tickets';
import { isBlankText } from '#contract/text';
import { isStaff } from '#contract/users';
import { errorMessage, newKey } from '../../app/api';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { AuthFile, type FileRef } from '../../components/AuthFile';
import { Icon } from '../../components/icons';
import { toastShown } from '../../components/toastsSlice';
import { Badge, Banner, Card, CountedLabel, LoadingScreen } from '../../components/ui';
import { formatDate, formatDateTime } from '../../lib/format';
import { joinTicket } from '../../lib/live';
import { discardMessage, enqueueMessage, flushOutbox, noteSending, retryMessage, useQueuedMessages } from '../../lib/outbox';
import { useShortcuts } from '../../lib/shortcuts';
import { selectUser } from '../../entities/session/sessionSlice';
import { useCannedMessagesQuery, useRecordCannedUseMutation } from '../../entities/ticket/api';
import { useEditMessageMutation, useMarkReadMutation, useRecordOutcomeMutation, useStaffMembersQuery, useTicketQuery } from './api';
import { useMacrosQuery } from '../../entities/macro/api';
import { usePublicSettingsQuery } from '../../entities/desk/api';
import { usePageTitle } from '../../lib/pageTitle';
import { type ChatSend, ChatInput, ConversationHeader, MessageList } from './Conversation';
import { PRIORITY_COLOR, neighbourTicket, statusLabel, statusVariant } from './display';
import { HistoryPanel } from './HistoryPanel';
import { MailCard } from './MailCard';
import { MergeCard, MergedIntoBanner, MoveDialog } from './MergePanel';
import { PresenceLine, useOthersOn } from './Presence';
import { QuickMessages } from './QuickMessages';
import { MacroMenu, MacroPreviewDialog } from './Macros';
import type { Macro } from '#contract/responses';
import { StatusSelect } from './StatusSelect';
import { TicketRouting } from './TicketRouting';
import type { Message, Ticket } from '../../entities/ticket/types';
import { useDeliverMessage } from './outbox';
import { typingText, useTyping } from './useTyping';
import { useTicketActions } from './useTicketActions';

/** Whether the details column shows: remembered in this browser (issue 41), shown by default. */
const DETAILS_KEY = 'ticketDetailsHidden';
const storedDetailsOpen = () => {
  try {
    return localStorage.getItem(DETAILS_KEY) !== 'true';
  } catch {
    return true;
  }
};
const rememberDetailsOpen = (open: boolean) => {
  try {
    localStorage.setItem(DETAILS_KEY, String(!open));
  } catch {
    // private mode: the choice lasts this page only
  }
  return open;
};

export function TicketNotFound() {
  return (
    <div className="page">
      <div className="card not-found">
        <Icon name="alert" size={40} />
        <h1>Ticket Not Found</h1>
        <p className="muted">The ticket you are looking for does not exist, or you do not have permission to view it.</p>
        <Link to="/dashboard" className="button button-primary">
          Back to Dashboard
        </Link>
      </div>
    </div>
  );
}

/** The outcome editor (staff): non-blank, at most 1000 characters, trimmed before saving. */
export function OutcomeEditor({ ticket, onSave }: { ticket: Ticket; onSave: (outcome: string) => Promise<string | null> }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(ticket.outcomeMessage ?? '');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const save = async () => {
    const checked = outcomeSchema.safeParse({ outcomeMessage: text });
    if (!checked.success) return setError(checked.error.issues[0]!.message);
    setSaving(true);
    const failure = await onSave(checked.data.outcomeMessage);
    setSaving(false);
    if (failure) return setError(failure);
    setEditing(false);
  };
  const start = () => {
    setText(ticket.outcomeMessage ?? '');
    setError(null);
    setEditing(true);
  };
  return (
    <Card
      title="Outcome"
      actions={
        !editing && (
          <button type="button" className="button button-secondary button-small" onClick={start}>
            <Icon name="edit" size={14} /> {ticket.outcomeMessage ? 'Edit Outcome' : 'Add Outcome'}
          </button>
        )
      }
    >
      {editing ? (
        <div className="form">
          <CountedLabel htmlFor="outcome" label="Outcome" length={text.length} max={OUTCOME_MAX} />
          <textarea id="outcome" rows={4} value={text} onChange={(e) => setText(e.target.value)} placeholder="How was this ticket resolved?" />
          {error && <p className="field-error">{error}</p>}
          <div className="form-actions">
            <button type="button" className="button button-ghost" onClick={() => setEditing(false)}>
              Cancel
            </button>
            <button type="button" className="button button-primary" onClick={() => void save()} disabled={saving || isBlankText(text)}>
              {saving ? 'Saving...' : 'Save Outcome'}
            </button>
          </div>
        </div>
      ) : ticket.outcomeMessage ? (
        <>
          <p className="preserve">{ticket.outcomeMessage}</p>
          {ticket.outcomeUpdatedAt && (
            <p className="muted small">
              Updated {formatDateTime(ticket.outcomeUpdatedAt)}
              {ticket.outcomeUpdatedBy && ` by ${ticket.outcomeUpdatedBy.firstName || ticket.outcomeUpdatedBy.username}`}
            </p>
          )}
        </>
      ) : (
        <p className="muted">No outcome recorded yet.</p>
      )}
    </Card>
  );
}

const UPLOAD_PATH = /\/(?:api\/)?uploads\/[\w.-]+/;

function AnswerValue({ value }: { value: Ticket['customFieldValues'][number]['value'] }) {
  if (typeof value === 'object' && value !== null) return <AuthFile file={value as FileRef} />;
  const text = String(value);
  const upload = text.match(UPLOAD_PATH);
  if (upload) {
    const url = upload[0].startsWith('/api/') ? upload[0] : `/api${upload[0]}`;
    return (
      <AuthFile
        file={{
          url,
          mimeType: /\.(png|jpe?g|gif|webp)$/i.test(url) ? 'image/*' : 'application/octet-stream',
          originalName: url.split('/').pop() ?? 'file',
          size: 0,
        }}
      />
    );
  }
  return <span className="preserve">{text}</span>;
}

const PLATFORM_WORDS = { web: 'Web', telegram: 'Telegram', email: 'E-mail' } as const;

export function TicketInformation({ ticket }: { ticket: Ticket }) {
  return (
    <Card title="Ticket Information">
      <dl className="info-list">
        <div>
          <dt>Customer</dt>
          <dd>
            {ticket.customer.firstName} {ticket.customer.lastName}
          </dd>
        </div>
        <div>
          <dt>Created via</dt>
          <dd>{PLATFORM_WORDS[ticket.platform]}</dd>
        </div>
        <div>
          <dt>Last updated</dt>
          <dd>{formatDateTime(ticket.updatedAt)}</dd>
        </div>
        {ticket.customFieldValues.map((answer) => (
          <div key={answer.fieldName}>
            <dt>{answer.fieldPrompt || answer.fieldName}</dt>
            <dd>
              <AnswerValue value={answer.value} />
            </dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

export function TicketHeader({
  ticket,
  staff,
  myId,
  isAdmin,
  onStatus,
  onAssign,
  onUnassign,
  detailsOpen,
  onToggleDetails,
}: {
  ticket: Ticket;
  staff: boolean;
  myId: string;
  isAdmin: boolean;
  onStatus: (status: string) => void;
  onAssign: () => void;
  onUnassign: () => void;
  detailsOpen?: boolean;
  onToggleDetails?: () => void;
}) {
  const canUnassign = ticket.assignedAgent !== null && (isAdmin || ticket.assignedAgent._id === myId);
  // Issue 41: at most about 110 px, the title on one line (whole on hover), the controls on one line.
  return (
    <header className="ticket-header card">
      <div className="ticket-header-top">
        <span className="ticket-number">#{ticket.ticketId}</span>
        <Badge variant={statusVariant(ticket.status)}>{statusLabel(ticket.status)}</Badge>
        <h1 title={ticket.title}>{ticket.title}</h1>
      </div>
      <div className="ticket-header-bar">
        <p className="ticket-facts muted">
          <span>
            <span className="color-dot" style={{ background: ticket.category.color }} aria-hidden="true" /> {ticket.category.name}
          </span>
          <span className={`badge priority-badge priority-${PRIORITY_COLOR[ticket.priority]}`}>{ticket.priority}</span>
          {ticket.team && <span>Team: {ticket.team.name}</span>}
          <span title={formatDateTime(ticket.createdAt)}>Created {formatDate(ticket.createdAt)}</span>
        </p>
        <div className="ticket-header-side">
          {staff && (
            <label className="inline-field">
              <span>Status</span>
              <StatusSelect ticket={ticket} onChange={onStatus} id="ticket-status" />
            </label>
          )}
          <div className="assignee">
            <span className="muted">Assigned to</span>
            {ticket.assignedAgent ? (
              <span className="assignee-name">
                <Icon name="user" size={14} /> {ticket.assignedAgent.username}
                {staff && canUnassign && (
                  <button type="button" className="icon-button" aria-label="Unassign" title="Unassign" onClick={onUnassign}>
                    <Icon name="close" size={14} />
                  </button>
                )}
              </span>
            ) : (
              <span className="muted">Unassigned</span>
            )}
            {staff && !ticket.mergedInto && ticket.assignedAgent?._id !== myId && (
              <button type="button" className="button button-primary button-small" onClick={onAssign}>
                Assign to Me
              </button>
            )}
          </div>
          {onToggleDetails && (
            <button
              type="button"
              className="button button-ghost button-small details-toggle"
              aria-expanded={detailsOpen}
              aria-controls="ticket-details"
              onClick={onToggleDetails}
            >
              <Icon name={detailsOpen ? 'chevronRight' : 'chevronLeft'} size={14} /> {detailsOpen ? 'Hide details' : 'Show details'}
            </button>
          )}
        </div>
      </div>
    </header>
  );
}

export function TicketPage() {
  const { ticketId = '' } = useParams();
  const me = useAppSelector(selectUser)!;
  const staff = isStaff(me.role);
  const dispatch = useAppDispatch();
  const { data, error, isLoading } = useTicketQuery(ticketId);
  usePageTitle(data ? `#${data.ticket.ticketId} ${data.ticket.title}` : null);
  const canned = useCannedMessagesQuery(undefined, { skip: !staff });
  const [recordCannedUse] = useRecordCannedUseMutation();
  const macros = useMacrosQuery(undefined, { skip: !staff });
  const colleagues = useStaffMembersQuery(undefined, { skip: !staff });
  const desk = usePublicSettingsQuery();
  const [applying, setApplying] = useState<Macro | null>(null);
  const deliver = useDeliverMessage();
  const [editMessage] = useEditMessageMutation();
  const [recordOutcome] = useRecordOutcomeMutation();
  const [markRead] = useMarkReadMutation();
  const actions = useTicketActions();
  const [draft, setDraft] = useState('');
  const [internal, setInternal] = useState(false);
  const [detailsOpen, setDetailsOpen] = useState(storedDetailsOpen);
  const [moving, setMoving] = useState<Message | null>(null);
  const navigate = useNavigate();
  const recordId = data?.ticket._id;
  const { typers, reportTyping } = useTyping(recordId, me._id);
  const others = useOthersOn(recordId, me._id, staff);
  const queued = useQueuedMessages(me._id, recordId);

  useEffect(() => (recordId ? joinTicket(recordId) : undefined), [recordId]);
  const messageCount = data?.messages.length ?? 0;
  useEffect(() => {
    if (recordId) void markRead(recordId);
  }, [recordId, messageCount, markRead]);

  // Keyboard (issue 41): the composer is one key away from anywhere on the ticket.
  const compose = (note: boolean) => {
    setInternal(staff && note);
    document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.focus();
  };
  const neighbour = (step: 1 | -1) => {
    const next = neighbourTicket(recordId, step);
    if (next) void navigate(`/tickets/${next}`);
  };
  useShortcuts({
    r: () => compose(false),
    n: () => compose(true),
    j: () => neighbour(1),
    k: () => neighbour(-1),
    ...(staff && data
      ? {
          a: () => {
            if (data.ticket.assignedAgent?._id !== me._id) void actions.assignToMe(data.ticket);
          },
          s: () => document.getElementById('ticket-status')?.focus(),
        }
      : {}),
  });

  if (isLoading) return <LoadingScreen text="Loading ticket..." />;
  if (error && 'status' in error && error.status === 404) return <TicketNotFound />;
  if (!data) {
    return (
      <div className="page">
        <Banner kind="error">{errorMessage(error, 'Failed to load ticket')}</Banner>
      </div>
    );
  }
  const { ticket, messages } = data;
  const typing = typingText(typers);

  /**
   * Offline, or behind messages still waiting, a text message joins the outbox (docs/web.md, "Outbox")
   * and the box empties as if it were sent; one that gets no answer joins it too, with the key it was
   * sent with. Files cannot be kept in the browser's storage: a message with files needs the connection.
   */
  const send = async ({ content, isInternal, files }: ChatSend) => {
    const message = {
      key: newKey(),
      ticketId: ticket._id,
      ticketKey: ticketId,
      content: content.slice(0, MESSAGE_MAX),
      isInternal,
      writtenAt: new Date().toISOString(),
      refused: null,
    };
    const keep = () => {
      enqueueMessage(me._id, message);
      void flushOutbox(me._id, ticket._id, deliver);
      return null;
    };
    const behindWaiting = queued.some((item) => item.refused === null);
    if (files.length === 0 && (!navigator.onLine || behindWaiting)) return keep();
    if (!navigator.onLine) return 'You are offline: files can be sent once the connection is back';
    // Text alone is kept in storage while on its way, so a reload before the answer loses nothing.
    const forget = files.length === 0 ? noteSending(me._id, message) : () => undefined;
    const outcome = await deliver(message, files);
    try {
      if (outcome === 'sent') return null;
      if (outcome === 'unreachable') return files.length === 0 ? keep() : 'Failed to send message';
      return outcome.refused;
    } finally {
      forget();
    }
  };
  const edit = async (message: { _id: string }, content: string) => {
    try {
      await editMessage({ ticketKey: ticketId, messageId: message._id, content }).unwrap();
      return null;
    } catch (failure) {
      return errorMessage(failure, 'Failed to edit message');
    }
  };
  const saveOutcome = async (outcomeMessage: string) => {
    try {
      await recordOutcome({ id: ticket._id, outcomeMessage }).unwrap();
      dispatch(toastShown('success', 'Outcome saved'));
      return null;
    } catch (failure) {
      console.error('Failed to save outcome', failure);
      return errorMessage(failure, 'Failed to save outcome');
    }
  };

  const quickMessages = staff && (
    <QuickMessages
      messages={canned.data?.cannedMessages ?? []}
      loading={canned.isLoading}
      failed={canned.isError}
      onChoose={(chosen) => {
        setDraft((current) =>
          (current ? `${current}${current.endsWith(' ') || current.endsWith('\n') ? '' : ' '}${chosen.content}` : chosen.content).slice(0, MESSAGE_MAX),
        );
        void recordCannedUse(chosen._id);
      }}
    />
  );

  // Issue 25: the conversation first, its composer at the bottom of the pane; the rest in a side column.
  return (
    <div className={`page ticket-page ${detailsOpen ? '' : 'details-hidden'}`}>
      <TicketHeader
        ticket={ticket}
        staff={staff}
        myId={me._id}
        isAdmin={me.role === 'admin'}
        onStatus={(status) => void actions.changeStatus(ticket, status)}
        onAssign={() => void actions.assignToMe(ticket)}
        onUnassign={() => void actions.unassign(ticket)}
        detailsOpen={detailsOpen}
        onToggleDetails={() => setDetailsOpen((open) => rememberDetailsOpen(!open))}
      />
      {actions.takeOverDialog}
      <MergedIntoBanner ticket={ticket} staff={staff} />
      <PresenceLine viewers={others} />
      {!staff && <SatisfactionPrompt ticketId={ticket._id} status={ticket.status} />}
      <div className="ticket-workspace">
        <section className="card conversation" aria-label="Conversation">
          <ConversationHeader count={messages.filter((message) => message.messageType !== 'system').length} />
          <MessageList
            messages={messages}
            myId={me._id}
            staff={staff}
            onEdit={edit}
            {...(staff && !ticket.mergedInto ? { onMove: setMoving } : {})}
            typing={typing}
            queued={queued}
            onCancelQueued={(message) => discardMessage(me._id, ticket._id, message.key)}
            onRetryQueued={(message) => {
              retryMessage(me._id, ticket._id, message.key);
              void flushOutbox(me._id, ticket._id, deliver);
            }}
          />
          {moving && <MoveDialog ticket={ticket} message={moving} onClose={() => setMoving(null)} />}
          <p className="typing-indicator" aria-live="polite">
            {typing ?? ''}
          </p>
          <ChatInput
            text={draft}
            onText={setDraft}
            internal={internal}
            onInternal={setInternal}
            staff={staff}
            closedForMe={!staff && ticket.status === 'closed'}
            onSend={send}
            onTyping={reportTyping}
            canned={canned.data?.cannedMessages ?? []}
            onCanned={(chosen) => void recordCannedUse(chosen._id)}
            macros={macros.data?.macros ?? []}
            onMacro={setApplying}
            colleagues={colleagues.data?.staff ?? []}
            fileLimits={desk.data}
          />
          {staff && <MacroMenu macros={macros.data?.macros ?? []} onChoose={setApplying} isAdmin={me.role === 'admin'} />}
          {applying && <MacroPreviewDialog ticketId={ticket._id} macro={applying} onClose={() => setApplying(null)} />}
        </section>
        {detailsOpen && (
          <section className="ticket-side" id="ticket-details" aria-label="Ticket details">
            <Card title="Description">
              <p className="preserve">{ticket.description}</p>
            </Card>
            {staff && <OutcomeEditor ticket={ticket} onSave={saveOutcome} />}
            {staff && (
              <TicketRouting
                ticket={ticket}
                onChange={(change) => void actions.reroute(ticket, change)}
                onTag={(tag, tagged) => void actions.tag(ticket, tag, tagged)}
              />
            )}
            <TicketInformation ticket={ticket} />
            {staff && ticket.platform === 'email' && <MailCard ticketId={ticket._id} version={String(messages.length)} />}
            {staff && <MergeCard ticket={ticket} />}
            <SatisfactionDetails ticketId={ticket._id} status={ticket.status} staff={staff} />
            {staff && <SlaDetails ticketId={ticket._id} version={`${ticket.updatedAt}|${ticket.status}|${messages.length}`} />}
            {quickMessages}
            {staff && (
              <HistoryPanel ticketId={ticket._id} version={`${ticket.updatedAt}|${messages.length}|${messages.map((m) => m.editedAt ?? '').join(',')}`} />
            )}
          </section>
        )}
      </div>
    </div>
  );
}
