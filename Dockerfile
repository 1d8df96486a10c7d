# syntax=docker/dockerfile:1
# Production image: Node 24, production dependencies only, non-root.
# Build:   docker build -t auth-gateway .
# Migrate: docker run --rm -e DATABASE_URL=… auth-gateway node scripts/migrate.js latest
# Run:     docker run -p 8080:8080 -e NODE_ENV=production -e DATABASE_URL=… -e OIDC_ISSUER=… \
#            -e ACCOUNT_CENTER_URL=https://account.example.com … auth-gateway   (every variable: README, Configuration)
#
# The account center is a second image of the same file (its own target, at the end):
#   docker build --target account-center -t account-center .
#   docker run -p 3000:3000 -e PUBLIC_URL=https://account.example.com -e AUTH_BACKEND_URL=https://auth.example.com/v1 \
#     -e AUTH_PLATFORM_KEY=ACCOUNT_CENTER -e ACCOUNT_CENTER_CLIENT_ID=… -e ACCOUNT_CENTER_CLIENT_SECRET=… account-center

# Base image: node:24-bookworm-slim by tag. To pin it by digest (reproducible builds), look the
# digest up and write it into every FROM line, keeping the tag for readers:
#   docker buildx imagetools inspect node:24-bookworm-slim --format '{{json .Manifest.Digest}}'
#   FROM node:24-bookworm-slim@sha256:<digest> AS …
# To update: run the same command again (a new Node 24 patch release or Debian security fix
# moves the tag) and replace the digest in every FROM line in one commit; Dependabot or
# Renovate can open that change for you ("docker" ecosystem). Not pinned yet: the digest must be
# read from the registry, which this repository's build machine cannot reach.

# The account center's browser app, built with the development dependencies (Vite, React).
FROM node:24-bookworm-slim AS account-center-build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY account-center ./account-center
COPY generated ./generated
RUN node --input-type=module -e "await (await import('./account-center/server/build.ts')).buildAccountCenter()"

# Its server: Node's http module, the platform kit's sources (packages/platform-kit/src, run as
# TypeScript as the server is) with the kit's two runtime dependencies (jose, openapi-fetch: no
# dependencies of their own), the built files, and its configuration.
FROM node:24-bookworm-slim AS account-center
ENV NODE_ENV=production PORT=3000
WORKDIR /app
COPY --from=account-center-build /app/account-center/dist ./account-center/dist
COPY --from=account-center-build /app/node_modules/jose ./node_modules/jose
COPY --from=account-center-build /app/node_modules/openapi-fetch ./node_modules/openapi-fetch
COPY packages/platform-kit/package.json ./packages/platform-kit/package.json
COPY packages/platform-kit/src ./packages/platform-kit/src
COPY account-center/server/main.ts account-center/server/server.ts ./account-center/server/
USER node
EXPOSE 3000
CMD ["node", "account-center/server/main.ts"]

# The gateway compiled to JavaScript (tsconfig.build.json): the image runs plain JavaScript, not
# TypeScript stripped at load, which kept ~25 MB more resident (docs/benchmarks.md, "Memory").
FROM account-center-build AS gateway-build
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
COPY scripts/migrate.ts ./scripts/migrate.ts
RUN npm run build

# The gateway (the default target: the last stage).
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; the dev-only packages (embedded PostgreSQL, dev
# identity provider, the pinned node binary) stay out of the image.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=8080
# Memory (docs/benchmarks.md, "Memory"): V8's young generation capped at 4 MB semi-spaces (Node
# 24 grows it to 64 MB at boot already, and those pages stay resident), and glibc limited to 2
# malloc arenas (one per thread otherwise: libuv's pool, V8's GC helpers). Measured with
# `npm run bench` on the compiled gateway, whole logins: RSS after ~100k logins 155.5 MB with
# 8 MB semi-spaces, 138.7 MB with 4 MB; gateway CPU per login x1.98 and x1.95 of the bare
# server's (three rounds each, back to back): no cost seen. Earlier, before the other memory
# work: 414 MB with neither setting, 244 MB with both (8 MB semi-spaces).
ENV NODE_OPTIONS=--max-semi-space-size=4 MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=gateway-build /app/build/src ./src
COPY --from=gateway-build /app/build/migrations ./migrations
COPY --from=gateway-build /app/build/scripts/migrate.js ./scripts/migrate.js
# The contract as JSON (npm run codegen writes it from openapi/gateway.yaml): no YAML is parsed at boot.
COPY generated/gateway.json ./generated/gateway.json
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "src/main.js"]
