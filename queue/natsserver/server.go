// Package natsserver runs the NATS server with JetStream embedded in gpucost (gpucost queue
// serve), for the work queues of package queue. It is a package of its own so that what only
// reads queues (the API, the dashboard) does not link the server: only cmd/gpucost and tests
// import it.
package natsserver

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/nats-io/nats-server/v2/server"
)

// Options configure the embedded NATS server.
type Options struct {
	// DataDir holds JetStream's files; queues survive a restart that reuses it.
	DataDir string
	// Listen is host:port; port -1 picks a free one (tests).
	Listen string
	// Ready, if set, is called with the client URL once the server accepts connections.
	Ready func(url string)
}

// Server is a running embedded NATS server with JetStream.
type Server struct {
	ns *server.Server
}

// Start starts an embedded NATS server with JetStream file storage in o.DataDir.
func Start(o Options) (*Server, error) {
	if o.DataDir == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "queue server: no data directory")
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:4222"
	}
	host, portText, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--listen %q: use host:port: %w", o.Listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < -1 || port > 65535 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--listen %q: port %q is not a number from 0 to 65535", o.Listen, portText)
	}
	ns, err := server.NewServer(&server.Options{
		ServerName: "gpucost", Host: host, Port: port,
		JetStream: true, StoreDir: o.DataDir,
		NoSigs: true, NoLog: true,
	})
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "queue server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, gpucost.Errorf(gpucost.EUnavailable, "queue server on %s did not start within 10s (is the port in use?)", o.Listen)
	}
	if !ns.JetStreamEnabled() {
		ns.Shutdown()
		return nil, gpucost.Errorf(gpucost.EUnavailable, "queue server: JetStream did not start with store %s", o.DataDir)
	}
	s := &Server{ns: ns}
	if o.Ready != nil {
		o.Ready(s.URL())
	}
	return s, nil
}

// URL is the address clients connect to.
func (s *Server) URL() string { return s.ns.ClientURL() }

// Shutdown stops the server; what JetStream stored stays in the data directory.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// Serve runs an embedded server until ctx ends.
func Serve(ctx context.Context, o Options) error {
	s, err := Start(o)
	if err != nil {
		return err
	}
	<-ctx.Done()
	s.Shutdown()
	return nil
}

// String describes the server for logs.
func (s *Server) String() string { return fmt.Sprintf("NATS JetStream at %s", s.URL()) }

// Main runs the queue server, the binary name (name), with command-line args until SIGINT or SIGTERM, printing the line
// "queue server listening at URL (data in DIR)" to stdout once it accepts connections, and
// returns the exit status: 0 after a signal, 2 for bad flags, 4 when the server cannot start.
func Main(name string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	fs.StringVar(&o.DataDir, "data", "", "directory for JetStream's files; queues survive a restart that reuses it (required)")
	fs.StringVar(&o.Listen, "listen", "127.0.0.1:4222", "host:port to listen on")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s --data DIR [--listen HOST:PORT]\n\nRuns the NATS JetStream server that holds gpucost's work queues; gpucost queue serve starts it.\n\n", name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.DataDir == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	o.Ready = func(url string) {
		fmt.Fprintf(stdout, "queue server listening at %s (data in %s); stop it with Ctrl-C or SIGTERM\n", url, o.DataDir)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Serve(ctx, o); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		if gpucost.ErrorCode(err) == gpucost.EInvalid {
			return 2
		}
		return 4
	}
	return 0
}
