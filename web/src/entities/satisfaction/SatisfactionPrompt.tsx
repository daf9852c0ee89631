import { useState } from 'react';
import { MESSAGE_MAX } from '#contract/tickets';
import type { TicketSatisfaction } from '#contract/satisfaction';
import { errorMessage } from '../../app/api';
import { Banner, Card } from '../../components/ui';
import { useCommentOnRatingMutation, useRateTicketMutation, useTicketSatisfactionQuery } from './api';

/** How a rating came in, in words ("4 of 5 on Telegram"). */
export const CHANNEL_WORDS = { web: 'on the web', telegram: 'on Telegram', email: 'by e-mail' } as const;

/** "4 of 5 (Good)": the score with the label the admin gave it. */
const scoreText = (survey: Pick<TicketSatisfaction, 'labels'>, score: number) => `${score} of 5 (${survey.labels[score - 1] ?? ''})`;

/** At the top of the ticket, for its customer while a resolution can be rated: five buttons, then "Anything to add?". */
export function SatisfactionPrompt({ ticketId, status }: { ticketId: string; status: string }) {
  const { data: survey } = useTicketSatisfactionQuery({ id: ticketId, version: status });
  const [rate, rating] = useRateTicketMutation();
  const [comment, commenting] = useCommentOnRatingMutation();
  const [text, setText] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  if (!survey?.canRate || !survey.episode) return null;
  const { score } = survey.episode;

  const choose = async (value: number) => {
    setFailure(null);
    try {
      await rate({ id: ticketId, score: value }).unwrap();
    } catch (error) {
      setFailure(errorMessage(error, 'The rating could not be saved'));
    }
  };
  const send = async () => {
    setFailure(null);
    try {
      await comment({ id: ticketId, comment: text }).unwrap();
      setText('');
    } catch (error) {
      setFailure(errorMessage(error, 'The comment could not be saved'));
    }
  };

  return (
    <Card title={survey.question} className="satisfaction-prompt">
      {failure && <Banner kind="error">{failure}</Banner>}
      <div className="satisfaction-scores" role="group" aria-label="Your rating">
        {survey.labels.map((label, index) => (
          <button
            key={label + index}
            type="button"
            className={`button button-small ${score === index + 1 ? 'button-primary' : 'button-outline'}`}
            aria-pressed={score === index + 1}
            disabled={rating.isLoading}
            onClick={() => void choose(index + 1)}
          >
            {index + 1} · {label}
          </button>
        ))}
      </div>
      {score !== null && (
        <div className="satisfaction-comment">
          <p className="muted">
            Thank you! You rated {scoreText(survey, score)}; you can change it for 7 days.
            {survey.episode.comment ? ' Your comment is saved.' : ''}
          </p>
          <label htmlFor="satisfaction-comment">Anything to add?</label>
          <textarea id="satisfaction-comment" value={text} maxLength={MESSAGE_MAX} rows={3} onChange={(event) => setText(event.target.value)} />
          <button
            type="button"
            className="button button-primary button-small"
            disabled={text.trim() === '' || commenting.isLoading}
            onClick={() => void send()}
          >
            Send comment
          </button>
        </div>
      )}
    </Card>
  );
}

/** The ticket's latest rating in its details column (staff and the customer, each in their own words). */
export function SatisfactionDetails({ ticketId, status, staff }: { ticketId: string; status: string; staff: boolean }) {
  const { data: survey } = useTicketSatisfactionQuery({ id: ticketId, version: status });
  const episode = survey?.episode;
  if (!survey || !episode) return null;
  return (
    <Card title="Satisfaction">
      {episode.score === null ? (
        <p className="muted">{!episode.open ? 'Not rated' : staff ? 'Waiting for the customer’s rating' : 'Not rated yet'}</p>
      ) : (
        <>
          <p data-testid="satisfaction-score">
            <strong>{scoreText(survey, episode.score)}</strong> <span className="muted">{episode.channel ? CHANNEL_WORDS[episode.channel] : ''}</span>
          </p>
          {/* Text only: React escapes it, and it keeps its line breaks. */}
          {episode.comment && <p className="preserve">{episode.comment}</p>}
        </>
      )}
      {episode.number > 1 && <p className="muted">Resolution {episode.number} of this ticket</p>}
    </Card>
  );
}
