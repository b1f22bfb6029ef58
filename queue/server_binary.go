package queue

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/gpucost/gpucost"
)

// FindServer finds the queue server binary (ServerCommand) that gpucost queue serve starts:
// $GPUCOST_QUEUE_SERVER as getenv reads it, else the one beside the running gpucost, else the
// one on $PATH. It returns an EUnavailable error that says how to build one when there is none.
func FindServer(getenv func(string) string) (string, error) {
	if p := getenv("GPUCOST_QUEUE_SERVER"); p != "" {
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), ServerCommand)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath(ServerCommand); err == nil {
		return p, nil
	}
	return "", gpucost.Errorf(gpucost.EUnavailable, "the queue server %s is neither beside gpucost nor on $PATH: build it with make build "+
		"(bin/%s) or go build ./cmd/%s in a gpucost checkout, or set $GPUCOST_QUEUE_SERVER to its path; "+
		"any NATS server with JetStream works too (nats-server -js -sd DIR), given to the other commands by --nats",
		ServerCommand, ServerCommand, ServerCommand)
}

// RunServer runs the queue server bin with its JetStream files in data, listening on listen,
// until ctx is done, when it is sent SIGTERM; stopped so, it returns nil. A server that exits
// by itself with a status is an EUnavailable error naming it.
func RunServer(ctx context.Context, bin, data, listen string, stdout, stderr io.Writer) error {
	c := exec.CommandContext(ctx, bin, "--data", data, "--listen", listen)
	c.Stdout, c.Stderr = stdout, stderr
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
	err := c.Run()
	if ctx.Err() != nil {
		return nil // stopped by Ctrl-C or SIGTERM, as asked
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return gpucost.Errorf(gpucost.EUnavailable, "queue server %s exited with status %d", bin, exit.ExitCode())
	}
	return err
}
