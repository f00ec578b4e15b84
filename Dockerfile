# One image for both process kinds: `npm run api` (default) and `npm run worker` (compose overrides).

# The dashboard (web/) is built with the dev dependencies, then only its static files are kept.
FROM node:20-bookworm-slim AS dashboard
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY temporal ./temporal
COPY web ./web
RUN npm run build:web

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY temporal ./temporal
# Both workflow bundles, cached where the worker looks (temporal/bundle-cache.ts): it runs as `node`,
# which cannot write there, and would otherwise build one in a child process at every start.
RUN node --import tsx temporal/bundle-cli.ts && node --import tsx temporal/bundle-cli.ts --traces
COPY --from=dashboard /app/web/dist ./web/dist
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
