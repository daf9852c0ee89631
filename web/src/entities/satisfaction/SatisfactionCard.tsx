import { useState } from 'react';
import type { SatisfactionGroup } from '#contract/satisfaction';
import { errorMessage } from '../../app/api';
import { Banner, Card } from '../../components/ui';
import { downloadWithToken } from '../../components/AuthFile';
import { useSatisfactionReportQuery } from './api';

const percentText = (value: number | null) => (value === null ? '–' : `${value}%`);

function GroupTable({ caption, rows }: { caption: string; rows: SatisfactionGroup[] }) {
  if (rows.length === 0) return null;
  return (
    <div className="satisfaction-scroll">
      <table className="table satisfaction-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{caption.replace('By ', '')}</th>
            <th scope="col">CSAT</th>
            <th scope="col">Responses</th>
            <th scope="col">Rated</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id ?? 'none'}>
              <td>{row.name}</td>
              <td>{percentText(row.score)}</td>
              <td>{percentText(row.responseRate)}</td>
              <td>
                {row.rated} / {row.surveyed}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The dashboard's customer satisfaction for the last 30 days: CSAT (share of 4 and 5), response rate, by category and agent, latest comments. */
export function SatisfactionCard() {
  const { data: report, error } = useSatisfactionReportQuery(undefined, { refetchOnMountOrArgChange: true });
  const [exportFailure, setExportFailure] = useState<string | null>(null);
  if (error) return <Banner kind="error">{errorMessage(error, 'Failed to load the satisfaction report')}</Banner>;
  if (!report) return null;
  return (
    <Card
      title="Customer satisfaction (30 days)"
      className="satisfaction-card"
      actions={
        <button
          type="button"
          className="button button-ghost button-small"
          onClick={() => downloadWithToken('/api/satisfaction/report.csv', 'satisfaction.csv').catch((failure: Error) => setExportFailure(failure.message))}
        >
          Export CSV
        </button>
      }
    >
      {exportFailure && <Banner kind="error">{exportFailure}</Banner>}
      <p>
        <strong data-testid="csat-score">CSAT {percentText(report.total.score)}</strong> · response rate {percentText(report.total.responseRate)} ·{' '}
        {report.total.rated} rated of {report.total.surveyed} resolutions
      </p>
      <GroupTable caption="By category" rows={report.byCategory} />
      <GroupTable caption="By agent" rows={report.byAgent} />
      <GroupTable caption="By team" rows={report.byTeam} />
      {report.latestComments.length > 0 && (
        <>
          <h3>Latest comments</h3>
          <ul className="satisfaction-comments">
            {report.latestComments.map((comment) => (
              <li key={`${comment.ticketId}:${comment.at}`}>
                <span className="muted">
                  #{comment.number} · {comment.score}/5{comment.agentName ? ` · ${comment.agentName}` : ''}
                </span>
                <p className="preserve">{comment.comment}</p>
              </li>
            ))}
          </ul>
        </>
      )}
    </Card>
  );
}
