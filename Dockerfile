# One image for both process kinds: the api (default) and the worker (`node dist/src/worker.js`,
# compose overrides the command). `npm run migrate` is `node dist/src/db/migrate.js`.

# The build: TypeScript to dist/, both workflow bundles into dist/workflow-bundles (where the compiled
# worker looks), the dashboard's static files into web/dist. Needs the dev dependencies.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY temporal ./temporal
COPY web ./web
RUN npm run build

# What runs: the production dependencies and the build, nothing else (no TypeScript, no tsx). The
# bundles' manifests name files by path, so /app is the folder in both stages.
FROM node:24.21.0-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
USER node
EXPOSE 3000
CMD ["node", "dist/src/main.js"]
