# One image for both process kinds: `npm run api` (default) and `npm run worker` (compose overrides).
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
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
