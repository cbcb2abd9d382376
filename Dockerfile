# One image for every service: `node services/<name>/dist/main.js` (see docker-compose.yml).
# Stage 1 builds with every dependency; stage 2 keeps the compiled output and the
# production dependencies only, and runs as the unprivileged `node` user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
# better-sqlite3 ships prebuilt binaries for this platform; its install script fetches them.
RUN npm ci --no-audit --no-fund \
 && npx tsc -b \
 && npm prune --omit=dev --no-audit --no-fund \
 && find . -name '*.tsbuildinfo' -delete

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    TEAMCHAT_DATA_DIR=/data \
    TEAMCHAT_HEALTH_FILE=/tmp/teamchat-healthy
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/libs ./libs
COPY --from=build /app/services ./services
COPY --from=build /app/apps ./apps
# Private to the server's user: a data directory open to others is refused in production.
# outbox/ exists in the image so that a named volume mounted there (docker-compose.yml)
# starts with this owner and mode, not root's 0755.
RUN mkdir -p /data/outbox && chown -R node:node /data && chmod -R 700 /data
USER node
VOLUME ["/data"]
EXPOSE 9991
CMD ["node", "services/gateway/dist/main.js"]
