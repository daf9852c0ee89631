/**
 * How long ioredis lets a closed connection's socket end by itself before destroying it
 * (`disconnectTimeout`, 2 s by default). Its timer is cleared only by the socket's `close` event,
 * which a socket that had already closed (Redis stopped or out of reach) never sends again: then
 * `disconnect()` left a 2 s timer that held a stopping process up (Jest force-exited the int tier's
 * workers after its 500 ms). On a live connection the socket closes within milliseconds anyway.
 */
export const REDIS_CLOSE_GRACE_MS = 200;
