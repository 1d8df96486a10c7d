# syntax=docker/dockerfile:1
# Production image: Node 24, production dependencies only, non-root.
# Build:   docker build -t auth-gateway .
# Migrate: docker run --rm -e DATABASE_URL=… auth-gateway node scripts/migrate.ts latest
# Run:     docker run -p 8080:8080 -e NODE_ENV=production -e DATABASE_URL=… -e OIDC_ISSUER=… auth-gateway

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; the dev-only packages (embedded PostgreSQL, dev
# identity provider, the pinned node binary) stay out of the image.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=8080
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY migrations ./migrations
COPY scripts/migrate.ts ./scripts/migrate.ts
COPY openapi ./openapi
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Node 24 runs the TypeScript sources directly (type stripping): no build step.
CMD ["node", "src/main.ts"]
