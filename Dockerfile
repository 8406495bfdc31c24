# syntax=docker/dockerfile:1
# Herald in a container (docs/deploy.md). Build from the repository root:
#
#   docker build -t herald --build-arg VERSION=$(git describe --always) --build-arg COMMIT=$(git rev-parse HEAD) .
#   docker run -p 4566:4566 -v herald-data:/var/lib/herald herald
#
# The embedded store lives on the volume /var/lib/herald; the process runs
# as an unprivileged user (65532) and listens on 0.0.0.0:4566.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/heraldmq/herald/internal/buildinfo.Version=${VERSION} -X github.com/heraldmq/herald/internal/buildinfo.Commit=${COMMIT}" \
      -o /out/herald ./cmd/herald \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/herald /usr/local/bin/herald
COPY --from=build --chown=65532:65532 /out/data /var/lib/herald
USER 65532:65532
ENV HERALD_LISTEN=0.0.0.0:4566 \
    HERALD_DATA_DIR=/var/lib/herald
VOLUME ["/var/lib/herald"]
EXPOSE 4566
ENTRYPOINT ["/usr/local/bin/herald"]
CMD ["serve"]
