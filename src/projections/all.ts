import { botCommandsProjection } from './botCommands';
import { categoriesProjection } from './categories';
import type { Projection } from './runner';
import { sessionsProjection } from './sessions';
import { settingsProjection } from './settings';
import { usersProjection } from './users';
import { whitelistProjection } from './whitelist';

/** Every read model of the product, in the order the runner applies them to each event. */
export const allProjections: Projection[] = [usersProjection, sessionsProjection, categoriesProjection, settingsProjection, botCommandsProjection, whitelistProjection];
