import type { Express } from 'express';
import { openApiPath } from '../../src/api/openapi/registry';

interface StackLayer {
  route?: { path: unknown; methods: Record<string, boolean>; stack: Array<{ method?: string; handle: unknown }> };
  handle?: { stack?: StackLayer[] };
  rawPath?: unknown;
}

/** A route the Express app serves: `GET`, its path as OpenAPI writes it (`/api/tickets/{id}`), and its handlers in order. */
export interface ServedRoute {
  method: string;
  path: string;
  handlers: unknown[];
}

function routesOf(stack: StackLayer[], prefix: string): ServedRoute[] {
  const found: ServedRoute[] = [];
  for (const layer of stack) {
    if (layer.route && typeof layer.route.path === 'string') {
      for (const method of Object.keys(layer.route.methods)) {
        const handlers = layer.route.stack.filter((entry) => entry.method === undefined || entry.method === method).map((entry) => entry.handle);
        found.push({ method: method.toUpperCase(), path: openApiPath(prefix + layer.route.path), handlers });
      }
    } else if (layer.handle?.stack && typeof layer.rawPath === 'string') {
      found.push(...routesOf(layer.handle.stack, layer.rawPath === '/' ? prefix : prefix + layer.rawPath));
    }
  }
  return found;
}

/** Every route the app serves, found by walking its routers. */
export const servedRoutes = (app: Express): ServedRoute[] => routesOf((app as Express & { router: { stack: StackLayer[] } }).router.stack, '');
