import { useTicketRatingsQuery } from './api';

/** The latest ratings of the tickets a list shows, one request for the whole list; undefined while loading. */
export function useRatingsOf(ticketIds: string[]) {
  const { data } = useTicketRatingsQuery(ticketIds, { skip: ticketIds.length === 0 });
  return new Map((data ?? []).map((rating) => [rating.ticketId, rating]));
}

/** A Live Tickets cell: "4/5", "awaiting" or a dash. */
export function RatingCell({ rating }: { rating: { score: number | null; awaiting: boolean } | undefined }) {
  if (rating?.awaiting) return <span className="muted small">awaiting</span>;
  if (rating?.score) return <span aria-label={`Rated ${rating.score} of 5`}>{rating.score}/5</span>;
  return <span className="muted">–</span>;
}
