# syntax=docker/dockerfile:1
# mcp-fuzz image: the CLI and the GitHub Action entrypoint, plus node/npm/npx and
# python3/uv/uvx so that `npx ...` and `uvx ...` MCP servers run inside it.
# Build: docker build --build-arg VERSION=1.2.3 -t mcp-fuzz .
# Multi-arch: docker buildx build --platform linux/amd64,linux/arm64 .
#
# The build stage runs on the BUILDER's platform ($BUILDPLATFORM) and
# cross-compiles for the target with GOOS/GOARCH from TARGETOS/TARGETARCH
# (BuildKit sets both), so an arm64 image needs no QEMU for the Go build,
# which is slow under emulation. Only the runtime stage (apt-get) runs as the
# target platform (under QEMU when it is not the builder's). The syntax line above needs BuildKit, which
# every builder of this file (buildx, the Actions runner's docker build) uses.
# VERSION is what --version prints: X.Y.Z without "v", as goreleaser's
# {{ .Version }} in .goreleaser.yaml, so the image and the release binaries agree.

# The Go version follows go.mod's go directive (major.minor); internal/imagetest checks.
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/mcp-fuzz ./cmd/mcp-fuzz \
 && CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/mcp-fuzz-action ./cmd/action

FROM node:22-bookworm-slim
LABEL org.opencontainers.image.title="mcp-fuzz" \
      org.opencontainers.image.description="Fuzz the tools of an MCP server, grade it, and gate CI on the result" \
      org.opencontainers.image.source="https://github.com/mcp-fuzz/mcp-fuzz" \
      org.opencontainers.image.licenses="NOASSERTION"
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 990 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin mcp-fuzz-box
# mcp-fuzz-box: the unprivileged account a server under test runs as when the
# working directory is root's (the box; see SECURITY.md). In the Action the
# workspace belongs to the runner's user, and the server runs as that user.
COPY --from=ghcr.io/astral-sh/uv:0.8.22 /uv /uvx /usr/local/bin/
COPY --from=build /out/mcp-fuzz /usr/local/bin/mcp-fuzz
COPY --from=build /out/mcp-fuzz-action /usr/local/bin/mcp-fuzz-action
COPY entrypoint.sh /entrypoint.sh
# No USER: GitHub runs Docker actions as root and mounts the workspace owned by
# the runner; a non-root user could not write the summary, outputs or reports.
ENTRYPOINT ["/entrypoint.sh"]
