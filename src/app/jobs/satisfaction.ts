/** Surveys waiting their delay after a resolution: one job per episode, planned from the resolution's event. */
export const SATISFACTION_QUEUE = 'satisfaction';

export interface SurveyJob {
  ticketId: string;
  episode: number;
}

/** The Telegram buttons' data: `csat:<ticketId>:<episode>:<score>` (at most 64 bytes, as the Bot API allows). */
export const surveyButtonData = (ticketId: string, episode: number, score: number) => `csat:${ticketId}:${episode}:${score}`;
export const SURVEY_BUTTON = /^csat:([A-Za-z0-9_-]{1,40}):(\d{1,6}):([1-5])$/;
