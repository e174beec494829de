# syntax=docker/dockerfile:1
# Renio as a container: the single executable (bun build --compile) on Debian slim, as a non-root
# user, SQLite in the /var/lib/renio volume. See README, Deploying, for what was tested.
#   docker build -t renio .
#   docker run -p 8080:8080 -v renio-data:/var/lib/renio \
#     -e RENIO_CLIENT_KEY=... -e OPENAI_API_KEY=... -e RENIO_ADMIN_TOKEN=... renio

# Build: the same commands as CI (npm ci; npm run build). Bun comes from npm as a pinned
# devDependency (its postinstall script puts its binary in place, so scripts stay on).
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.sh scripts/
COPY src/ src/
RUN npm run build && ./dist/renio --version

# Run: glibc (the executable needs it), CA certificates, bash for the health check; nothing else.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/renio --shell /usr/sbin/nologin renio \
 && install -d -o renio -g renio -m 0750 /var/lib/renio
COPY --from=build /src/dist/renio /usr/local/bin/renio
COPY deploy/renio.yaml /etc/renio/renio.yaml
USER renio
WORKDIR /var/lib/renio
VOLUME ["/var/lib/renio"]
ENV RENIO_CONFIG=/etc/renio/renio.yaml \
    RENIO_HOST=0.0.0.0 \
    RENIO_PORT=8080 \
    RENIO_LOG_FORMAT=json
EXPOSE 8080
# GET /healthz over bash's /dev/tcp (no curl in the image): healthy on "HTTP/1.1 200".
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${RENIO_PORT:-8080} && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q '^HTTP/1.[01] 200 '"]
# SIGTERM (docker stop): in-flight calls finish within server.shutdownGraceMs (10 s), then the journal is flushed.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/renio"]
CMD ["serve"]
