# syntax=docker/dockerfile:1
# One image for the API, the worker and the migrations; the compose file picks the command.
# Debian (glibc), not Alpine: the Temporal SDK's native bridge ships no musl build.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install` follows the lock file; `npm ci` refuses lock files written by registry mirrors
# that leave out other platforms' optional packages.
RUN npm install --no-audit --no-fund
COPY . .
# The source tree is compiled to JavaScript here (dist/), so no process compiles TypeScript at
# start; and the workflow bundle is built once, so workers start without running webpack, and
# every worker of a release runs byte-identical workflow code.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

FROM node:24-bookworm-slim AS runtime
# The SDK's core (Rust) checks Temporal Cloud's TLS certificate against the system's CA store.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/.data \
    WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js
WORKDIR /app
# Code stays owned by root: the service can read it but never rewrite it.
COPY --from=build /app /app
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
# 3000: the API. 9464: a worker's Prometheus metrics (WORKER_METRICS_PORT).
EXPOSE 3000 9464
# Liveness only: /readyz (Postgres and Temporal) decides traffic, not restarts.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node directly, not through npm, so SIGTERM reaches the graceful shutdown.
# A small young generation: Node 24's V8 sizes it from the machine's memory (up to 64 MB a
# semi-space), which put a burst of photo uploads 100 MB above Node 20's peak; 4 MB holds the
# API's peak near Node 20's (docs/performance.md, "Node 24 and the young generation").
CMD ["node", "--max-semi-space-size=4", "dist/api/main.js"]
