// Command gpucost-queue-server runs the NATS JetStream server that holds gpucost's work queues.
// gpucost queue serve starts it; it is a binary of its own so that the NATS server stays out
// of the gpucost binary every GPU node runs (docs/architecture.md "Binary size").
package main

import (
	"os"

	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/queue/natsserver"
)

func main() { os.Exit(natsserver.Main(queue.ServerCommand, os.Args[1:], os.Stdout, os.Stderr)) }
