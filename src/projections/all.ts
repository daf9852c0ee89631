import { categoriesProjection } from './categories';
import type { Projection } from './runner';
import { sessionsProjection } from './sessions';
import { usersProjection } from './users';

/** Every read model of the product, in the order the runner applies them to each event. */
export const allProjections: Projection[] = [usersProjection, sessionsProjection, categoriesProjection];
