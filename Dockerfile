# The service image: Node 24 (the current LTS) on Debian with Debian's Chromium (never a downloaded browser).
FROM node:24-bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
# `prepare` builds dist/ during npm ci; dev dependencies are pruned after.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 CHROMIUM_PATH=/usr/bin/chromium TRAWL_DATA_DIR=/data
# /data/files: the file store (screenshots), owned by node so a volume mounted there starts so too.
RUN mkdir -p /data/files && chown -R node:node /data
VOLUME /data
EXPOSE 3000
USER node
CMD ["node", "bin/trawl.js", "serve"]
