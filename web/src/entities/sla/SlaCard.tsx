import { useState } from 'react';
import { SLA_TARGET_WORDS, type SlaGroup } from '#contract/sla';
import { errorMessage } from '../../app/api';
import { Banner, Card } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { downloadWithToken } from '../../components/AuthFile';
import { useSlaReportQuery } from './api';

const percentText = (value: number | null) => (value === null ? '–' : `${value}%`);

function AttainmentTable({ caption, rows }: { caption: string; rows: SlaGroup[] }) {
  if (rows.length === 0) return null;
  return (
    // A table wider than the side column scrolls within it; keyboard users reach the scroll as a stop of its own.
    <div className="sla-scroll" tabIndex={0} role="region" aria-label={`Attainment ${caption.toLowerCase()}`}>
      <table className="table satisfaction-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{caption.replace('By ', '')}</th>
            {rows[0]!.targets.map((target) => (
              <th scope="col" key={target.target}>
                {SLA_TARGET_WORDS[target.target]}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id ?? 'none'}>
              <td>{row.name}</td>
              {row.targets.map((target) => (
                <td key={target.target} title={`${target.met} met, ${target.breached} breached`}>
                  {percentText(target.attainment)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const PERIODS = [7, 30, 90] as const;

/** The dashboard's service levels for a chosen period: % met per target, by category and by agent, and the breaches (docs/sla.md). */
export function SlaCard() {
  const [days, setDays] = useState<(typeof PERIODS)[number]>(30);
  const { data: report, error } = useSlaReportQuery({ days }, { refetchOnMountOrArgChange: true });
  const [exportFailure, setExportFailure] = useState<string | null>(null);
  if (error) return <Banner kind="error">{errorMessage(error, 'Failed to load the service-level report')}</Banner>;
  if (!report) return null;
  return (
    <Card
      title="Service levels"
      className="sla-card"
      actions={
        <>
          <select aria-label="Period" value={days} onChange={(event) => setDays(Number(event.target.value) as (typeof PERIODS)[number])}>
            {PERIODS.map((period) => (
              <option key={period} value={period}>
                Last {period} days
              </option>
            ))}
          </select>
          <button
            type="button"
            className="button button-ghost button-small"
            onClick={() =>
              downloadWithToken(`/api/sla/report.csv?from=${encodeURIComponent(report.from)}`, 'sla.csv').catch((failure: Error) =>
                setExportFailure(failure.message),
              )
            }
          >
            Export CSV
          </button>
        </>
      }
    >
      {exportFailure && <Banner kind="error">{exportFailure}</Banner>}
      <AttainmentTable caption="Overall" rows={[report.total]} />
      <AttainmentTable caption="By category" rows={report.byCategory} />
      <AttainmentTable caption="By agent" rows={report.byAgent} />
      <AttainmentTable caption="By team" rows={report.byTeam} />
      {report.breaches.length > 0 && (
        <>
          <h3>Breached</h3>
          <ul className="sla-breaches">
            {report.breaches.slice(0, 20).map((breach) => (
              <li key={`${breach.ticketId}-${breach.target}-${breach.episode}`}>
                <a href={`/tickets/${breach.ticketId}`}>#{breach.number}</a> {breach.title} · {SLA_TARGET_WORDS[breach.target]} due{' '}
                {formatDateTime(breach.dueAt)}
                {breach.agentName ? ` · ${breach.agentName}` : ''}
              </li>
            ))}
          </ul>
        </>
      )}
    </Card>
  );
}
