# syntax=docker/dockerfile:1
# gpucost's image for people with Docker: docker build -t gpucost --build-arg VERSION=v0.1.0 .
# gpucost is built with cgo, so the agent loads libnvidia-ml.so.1 through NVML when the NVIDIA
# container runtime injects the driver (NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES
# below); the runtime base is distroless's, with the same glibc as the builder (Debian 13), and
# runs as its nonroot user, uid 65532. docs/deploy.md "Images" compares it with the daemonless
# image of make image, and says how hack/dockerfile-build.sh builds this file without Docker.
ARG GO_VERSION=1.26.8
# The two base images, by their registries' names. hack/dockerfile-build.sh passes images it
# makes from Debian's packages and the Go toolchain instead, where the registries are out of
# reach.
ARG GOLANG_IMAGE=golang:${GO_VERSION}-trixie
ARG DISTROLESS_IMAGE=gcr.io/distroless/base-debian13:nonroot

FROM ${GOLANG_IMAGE} AS build
WORKDIR /src
# Modules first, so that a source change does not download them again. go.mod replaces
# parquet-go with the copy under third_party/.
COPY go.mod go.sum ./
COPY third_party/ third_party/
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# .dockerignore leaves .git out, so go build records no commit: COMMIT names it instead.
ARG VERSION=dev
ARG COMMIT=
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=1 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" -o /out/gpucost ./cmd/gpucost && \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/gpucost-queue-server ./cmd/gpucost-queue-server && \
    /out/gpucost version && \
    mkdir -p /out/store

FROM ${DISTROLESS_IMAGE}
ARG VERSION=dev
ARG COMMIT=
LABEL org.opencontainers.image.title="gpucost" \
      org.opencontainers.image.description="GPU cost optimisation: utilisation, idle cost, bills, budgets and recommendations" \
      org.opencontainers.image.source="https://github.com/gpucost/gpucost" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}"
# gpucost queue serve finds gpucost-queue-server beside gpucost.
COPY --from=build /out/gpucost /out/gpucost-queue-server /usr/local/bin/
# /var/lib/gpucost, where the Helm chart keeps the store, belongs to the image's user, so that a
# volume mounted there starts with that owner: docker run -v gpucost:/var/lib/gpucost.
COPY --from=build --chown=65532:65532 /out/store/ /var/lib/gpucost/
# The NVIDIA container runtime injects every GPU and the driver's utility libraries (NVML,
# nvidia-smi) into a container that asks; the agent watches GPUs, it requests none.
# XDG_DATA_HOME: gpucost's default store, gpucost.db, goes under /tmp/gpucost; mount a volume
# and pass --db (or GPUCOST_DB) to keep it.
ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=utility \
    XDG_DATA_HOME=/tmp
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/gpucost"]
CMD ["--help"]
