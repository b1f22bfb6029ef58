# syntax=docker/dockerfile:1
# gpucost's image for people with Docker: docker build -t gpucost --build-arg VERSION=v0.1.0 .
# gpucost is built with cgo, so the agent loads libnvidia-ml.so.1 through NVML when the NVIDIA
# container runtime injects the driver (NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES
# below); the runtime base is distroless's, with the same glibc as the builder (Debian 13), and
# runs as its nonroot user, uid 65532. docs/deploy.md "Images" compares it with the daemonless
# image of make image.
ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION}-trixie AS build
WORKDIR /src
# Modules first, so that a source change does not download them again. go.mod replaces
# parquet-go with the copy under third_party/.
COPY go.mod go.sum ./
COPY third_party/ third_party/
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=1 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/gpucost ./cmd/gpucost && \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/gpucost-queue-server ./cmd/gpucost-queue-server && \
    /out/gpucost version

FROM gcr.io/distroless/base-debian13:nonroot
# gpucost queue serve finds gpucost-queue-server beside gpucost.
COPY --from=build /out/gpucost /out/gpucost-queue-server /usr/local/bin/
# The NVIDIA container runtime injects every GPU and the driver's utility libraries (NVML,
# nvidia-smi) into a container that asks; the agent watches GPUs, it requests none.
ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=utility \
    XDG_DATA_HOME=/tmp
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/gpucost"]
CMD ["--help"]
