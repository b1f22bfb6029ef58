# gpucost — the newcomer's two commands are `make demo` and `make test`.
GO      ?= go
BIN     := bin/gpucost
DEMO_DB ?= demo.db

.PHONY: demo test build vet fmt-check bench bench-compare fuzz size gpu-check clean image manifests helm-check

# build builds gpucost, stamped with $(VERSION), the commit and the date (gpucost version), and,
# beside it, the queue server that gpucost queue serve starts.
LDVERSION = -X main.version=$(VERSION) -X main.commit=$$(git rev-parse HEAD 2>/dev/null) -X main.buildDate=$$(date -u +%Y-%m-%dT%H:%M:%SZ)
build:
	$(GO) build -ldflags "$(LDVERSION)" -o $(BIN) ./cmd/gpucost
	$(GO) build -o bin/gpucost-queue-server ./cmd/gpucost-queue-server

# demo builds gpucost, loads the 30-day demo fleet and its bill into $(DEMO_DB), prints the headlines
# and serves the dashboard on http://127.0.0.1:8080/ until Ctrl-C (gpucost demo --no-serve only prints).
# Its stamp leaves the build date out, so that go build links nothing when no source changed.
DEMOLDVERSION = -X main.version=$(VERSION) -X main.commit=$$(git rev-parse HEAD 2>/dev/null)
demo:
	$(GO) build -ldflags "$(DEMOLDVERSION)" -o $(BIN) ./cmd/gpucost
	./$(BIN) demo --db $(DEMO_DB)

# test runs formatting and vet checks, every test, and the race detector on concurrent code.
test: fmt-check vet
	$(GO) test -count=1 -timeout 30m ./...
	$(GO) test -count=1 -timeout 30m -race ./telemetry/... ./agent/... ./profile/... ./sqlite/... ./cmd/... ./spot/... ./queue/... ./file/... ./s3/... ./httpapi/... ./notify/... ./postgres/... ./web/... ./enforce/...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# bench runs the speed and memory benchmarks named in the issues.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# bench-compare prints each import figure of issue 21 beside its target, and gpucost's import
# time beside DuckDB's on the same bills when node is installed: ROWS="1000000 10000000" for both
# sizes (hack/bench-compare.sh).
bench-compare:
	GO="$(GO)" ./hack/bench-compare.sh

# fuzz runs every fuzz target, one at a time, for FUZZTIME (10,000 inputs each; a failing input
# is minimised for 3s, not Go's 60s) and prints a line per target: inputs run and seconds taken.
# Narrow it with FUZZ and PKG: make fuzz FUZZ=FuzzRead PKG=./billing/focus FUZZTIME=2m
FUZZ     ?= Fuzz.*
PKG      ?= ./...
FUZZTIME ?= 10000x
fuzz:
	GO="$(GO)" FUZZ='$(FUZZ)' PKG='$(PKG)' FUZZTIME='$(FUZZTIME)' FUZZMINTIME=3s FUZZPAR=1 ./scripts/fuzz.sh

# size builds the stripped binary and prints its size and the modules and packages that fill it
# (docs/architecture.md "Binary size"). It fails above MAXMB MB (40, the issue's limit); TOP=40
# lists more.
MAXMB ?= 40
size:
	GO="$(GO)" TOP='$(TOP)' MAXMB='$(MAXMB)' ./scripts/size.sh

# On an NVIDIA machine: collectors, profile, and the example under gpucost run (docs/gpu-check.md).
gpu-check:
	./scripts/gpu-check.sh

# image builds the container image without a Docker daemon: a static gpucost and the queue
# server layered onto an empty base, written as an OCI layout tarball (docs/deploy.md "Images").
# With Docker, docker build -t gpucost . builds the glibc image that finds NVML.
IMAGE_OUT ?= bin/gpucost-image.tar
VERSION   ?= dev
image:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o bin/static/gpucost ./cmd/gpucost
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o bin/static/gpucost-queue-server ./cmd/gpucost-queue-server
	$(GO) -C deploy/image run . -gpucost $(CURDIR)/bin/static/gpucost -queue-server $(CURDIR)/bin/static/gpucost-queue-server -version $(VERSION) -out $(abspath $(IMAGE_OUT))

# manifests renders deploy/manifests/gpucost.yaml from the Helm chart's default values
# (deploy/helm_test.go checks it is up to date).
HELM ?= helm
manifests:
	{ printf '%s\n' \
	  '# gpucost for kubectl apply, rendered from deploy/helm/gpucost with its default values by' \
	  '# make manifests (helm template gpucost deploy/helm/gpucost --namespace gpucost); do not edit.' \
	  '# Before applying: kubectl create namespace gpucost and the ingest token'"'"'s Secret (docs/deploy.md).'; \
	  $(HELM) template gpucost deploy/helm/gpucost --namespace gpucost; } > deploy/manifests/gpucost.yaml

# helm-check lints and renders the chart with every example values file and checks the result
# (deploy/helm_test.go); CI=true makes a missing helm a failure.
helm-check:
	CI=true $(GO) test -count=1 -run 'TestChart|TestManifests' ./deploy/

clean:
	rm -rf bin $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm $(DEMO_DB).ingest-wal $(basename $(DEMO_DB))-bill.focus.csv
