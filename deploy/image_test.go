package deploy

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImageRunsVersion builds static gpucost binaries, layers them into an image with
// deploy/image (no Docker daemon), then reads the OCI layout tarball back with the standard
// library only: the index, the manifest, the config and every layer, each blob checked against
// its digest; unpacks the layers into a directory and runs gpucost --version from it.
func TestImageRunsVersion(t *testing.T) {
	bins := staticBinaries(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	dir := t.TempDir()
	const version = testVersion
	archive := filepath.Join(dir, "image.tar")
	cmd := exec.Command(goCmd, "run", ".", "-gpucost", filepath.Join(bins, "gpucost"),
		"-queue-server", filepath.Join(bins, "gpucost-queue-server"), "-version", version, "-out", archive)
	cmd.Dir = "image"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./deploy/image: %v\n%s", err, out)
	}

	img := readOCIArchive(t, archive)
	c := img.config.Config
	if c.User != "65532:65532" || !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/gpucost"}) {
		t.Errorf("image config User %q Entrypoint %q, want 65532:65532 and /usr/local/bin/gpucost", c.User, c.Entrypoint)
	}
	for _, env := range []string{"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=utility"} {
		if !slices.Contains(c.Env, env) {
			t.Errorf("image config Env %q lacks %s", c.Env, env)
		}
	}
	if img.config.OS != "linux" || img.config.Architecture != "amd64" {
		t.Errorf("image config os/arch %s/%s, want linux/amd64", img.config.OS, img.config.Architecture)
	}
	if got := img.config.Config.Labels["org.opencontainers.image.version"]; got != version {
		t.Errorf("image version label %q, want %q", got, version)
	}

	root := filepath.Join(dir, "rootfs")
	for _, l := range img.layers {
		untar(t, l, root)
	}
	for _, bin := range []string{"usr/local/bin/gpucost", "usr/local/bin/gpucost-queue-server"} {
		fi, err := os.Stat(filepath.Join(root, bin))
		if err != nil || fi.Mode()&0o111 != 0o111 {
			t.Errorf("unpacked image: %s: %v, mode %v; want an executable for all", bin, err, fi)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, "tmp")); err != nil || fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("unpacked image: /tmp: %v %v, want drwxrwxrwt", err, fi)
	}
	out, err := exec.Command(filepath.Join(root, "usr/local/bin/gpucost"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "gpucost "+version+" (") {
		t.Errorf("gpucost --version from the unpacked image = %q, %v; want the line of %q", out, err, "gpucost "+version)
	}
}

// ociImage is an image read back from an OCI layout tarball.
type ociImage struct {
	config struct {
		Architecture string `json:"architecture"`
		OS           string `json:"os"`
		Config       struct {
			User       string            `json:"User"`
			Entrypoint []string          `json:"Entrypoint"`
			Env        []string          `json:"Env"`
			Labels     map[string]string `json:"Labels"`
		} `json:"config"`
	}
	layers [][]byte // uncompressed tar of each layer, bottom first
}

type ociDescriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
}

// readOCIArchive reads an OCI image layout from a tar file: oci-layout, index.json naming one
// image manifest, and the blobs it names, each checked against its digest.
func readOCIArchive(t *testing.T, path string) ociImage {
	t.Helper()
	files := map[string][]byte{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(bufio.NewReader(f))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = b
		}
	}
	if !bytes.Contains(files["oci-layout"], []byte(`"imageLayoutVersion"`)) {
		t.Fatalf("%s: no oci-layout file: not an OCI image layout", path)
	}
	blob := func(d ociDescriptor) []byte {
		hexDigest, ok := strings.CutPrefix(d.Digest, "sha256:")
		b, found := files["blobs/sha256/"+hexDigest]
		if !ok || !found {
			t.Fatalf("%s: blob %s (%s) is missing", path, d.Digest, d.MediaType)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != hexDigest {
			t.Fatalf("%s: blob %s has digest sha256:%x", path, d.Digest, sum)
		}
		return b
	}
	var index struct{ Manifests []ociDescriptor }
	if err := json.Unmarshal(files["index.json"], &index); err != nil || len(index.Manifests) != 1 {
		t.Fatalf("%s: index.json: %v, %d manifests; want one", path, err, len(index.Manifests))
	}
	if mt := index.Manifests[0].MediaType; mt != "application/vnd.oci.image.manifest.v1+json" {
		t.Errorf("%s: manifest media type %s, want OCI's", path, mt)
	}
	var manifest struct {
		Config ociDescriptor
		Layers []ociDescriptor
	}
	if err := json.Unmarshal(blob(index.Manifests[0]), &manifest); err != nil {
		t.Fatal(err)
	}
	var img ociImage
	if err := json.Unmarshal(blob(manifest.Config), &img.config); err != nil {
		t.Fatal(err)
	}
	if len(manifest.Layers) == 0 {
		t.Fatalf("%s: the image has no layers", path)
	}
	for _, l := range manifest.Layers {
		b := blob(l)
		if strings.HasSuffix(l.MediaType, "+gzip") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("layer %s: %v", l.Digest, err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatalf("layer %s: %v", l.Digest, err)
			}
		}
		img.layers = append(img.layers, b)
	}
	return img
}

// untar unpacks a layer's directories and regular files under root, refusing paths that leave
// it.
func untar(t *testing.T, layer []byte, root string) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(layer))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Clean(h.Name)
		if !filepath.IsLocal(name) {
			t.Fatalf("layer entry %q leaves the root", h.Name)
		}
		p := filepath.Join(root, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, h.FileInfo().Mode()); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, h.FileInfo().Mode().Perm()); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("layer entry %s: type %c; want directories and files only", h.Name, h.Typeflag)
		}
	}
}
