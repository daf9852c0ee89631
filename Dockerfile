# syntax=docker/dockerfile:1
# One Node major for building and running (native modules are compiled for it); package.json's
# engines asks for >= 20.19, which every current node:20 image is.
ARG NODE_MAJOR=20
FROM node:${NODE_MAJOR}-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The same locked install as CI (.ci/run), so the tested install is the image's.
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:${NODE_MAJOR}-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/data PORT=3000
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# The app listens at once and says `starting` while its read models catch up with a large log; the
# check counts that as alive (see src/cli/healthcheck.ts), so a long catch-up is never restarted.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "dist/src/cli/healthcheck.js"]
CMD ["node", "dist/src/main.js"]
