// Command image builds gpucost's container image without a Docker daemon: it layers a gpucost
// binary (and gpucost-queue-server, which gpucost queue serve starts) onto an empty base and
// writes the image as an OCI layout tarball, which docker load, podman load, skopeo and crane
// read. The binaries must be static (CGO_ENABLED=0): the empty base has no C library, so this
// image's agent reads dcgm-exporter or Prometheus, never NVML (docs/deploy.md "Images").
//
//	go run . -gpucost ../../bin/static/gpucost -queue-server ../../bin/static/gpucost-queue-server -out gpucost.tar
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// uid is the image's user and group: distroless's nonroot, as the Dockerfile's.
const uid = 65532

// binDir is where the binaries go: gpucost finds gpucost-queue-server beside itself.
const binDir = "usr/local/bin"

// Options is what one image holds.
type Options struct {
	Gpucost     string // path of the static gpucost binary
	QueueServer string // path of the static gpucost-queue-server binary; "" leaves it out
	Version     string // the image's org.opencontainers.image.version
	Created     time.Time
}

func main() {
	var o Options
	var out, ref string
	flag.StringVar(&o.Gpucost, "gpucost", "", "the static gpucost binary (CGO_ENABLED=0 go build ./cmd/gpucost)")
	flag.StringVar(&o.QueueServer, "queue-server", "", "the static gpucost-queue-server binary")
	flag.StringVar(&o.Version, "version", "dev", "the image's version label")
	flag.StringVar(&out, "out", "gpucost-image.tar", "the OCI layout tarball to write")
	flag.StringVar(&ref, "ref", "ghcr.io/gpucost/gpucost:dev", "the image name recorded in the layout's index")
	flag.Parse()
	if o.Gpucost == "" {
		fmt.Fprintln(os.Stderr, "image: -gpucost is required: build it with CGO_ENABLED=0 go build -o bin/static/gpucost ./cmd/gpucost")
		os.Exit(2)
	}
	img, err := Build(o)
	if err == nil {
		err = WriteLayoutTar(out, img, ref)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	d, _ := img.Digest()
	fmt.Printf("wrote %s: %s (%s)\n", out, ref, d)
}

// Build returns the image: one layer with the binaries, owned by root and executable by all,
// and a config that runs gpucost as uid 65532 with the environment the NVIDIA container
// runtime reads.
func Build(o Options) (v1.Image, error) {
	files := map[string]string{filepath.Join(binDir, "gpucost"): o.Gpucost}
	if o.QueueServer != "" {
		files[filepath.Join(binDir, "gpucost-queue-server")] = o.QueueServer
	}
	layerTar, err := binariesTar(files, o.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
		History: v1.History{CreatedBy: "deploy/image: gpucost binaries", Created: v1.Time{Time: o.Created}}})
	if err != nil {
		return nil, fmt.Errorf("append layer: %w", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = "amd64", "linux"
	cfg.Created = v1.Time{Time: o.Created}
	cfg.Config = v1.Config{
		User:       fmt.Sprintf("%d:%d", uid, uid),
		Entrypoint: []string{"/" + binDir + "/gpucost"},
		WorkingDir: "/",
		Env: []string{
			"PATH=/" + binDir,
			// The NVIDIA container runtime injects every GPU's device node and the driver's
			// utility libraries (libnvidia-ml, nvidia-smi) into a container that asks.
			"NVIDIA_VISIBLE_DEVICES=all",
			"NVIDIA_DRIVER_CAPABILITIES=utility",
			// gpucost's data directory (storeopen.DataHome) where no HOME is writable.
			"XDG_DATA_HOME=/tmp",
		},
		ExposedPorts: map[string]struct{}{"8080/tcp": {}},
		Labels: map[string]string{
			"org.opencontainers.image.title":   "gpucost",
			"org.opencontainers.image.source":  "https://github.com/gpucost/gpucost",
			"org.opencontainers.image.version": o.Version,
		},
	}
	return mutate.ConfigFile(img, cfg)
}

// binariesTar is a layer holding each file at its path, mode 0755, with its parent
// directories; entries are written in path order with a fixed time, so the same binaries give
// the same layer digest.
func binariesTar(files map[string]string, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		var parent string
		for _, part := range strings.Split(filepath.Dir(p), "/") {
			parent = filepath.Join(parent, part)
			if dirs[parent] {
				continue
			}
			dirs[parent] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: parent + "/", Mode: 0o755, ModTime: mtime}); err != nil {
				return nil, err
			}
		}
		b, err := os.ReadFile(files[p])
		if err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: 0o755, Size: int64(len(b)), ModTime: mtime}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	// /tmp, writable by all with the sticky bit, for bill uploads and the data directory.
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: mtime}); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteLayoutTar writes img as an OCI image layout (index.json, oci-layout, blobs/) in a tar
// file at path, the image named ref in the index.
func WriteLayoutTar(path string, img v1.Image, ref string) error {
	dir, err := os.MkdirTemp("", "gpucost-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	return tarDir(dir, path)
}

// tarDir writes the files under dir into a tar file at path, relative to dir.
func tarDir(dir, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if info.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if info.IsDir() {
			return nil
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
