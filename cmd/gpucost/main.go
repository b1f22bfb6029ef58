// Command gpucost finds where GPU money goes: it collects GPU utilisation, keeps rollups in a
// store, prices GPUs from a catalog, and reports idle time and what it costs.
//
// This is the only package that reads the environment; everything below it takes its settings
// as arguments.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
	})
	stop()
	os.Exit(code)
}
