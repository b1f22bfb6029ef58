package main

import (
	"fmt"

	"github.com/gpucost/gpucost/internal/buildinfo"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// Set by the linker where make builds a release:
// -ldflags "-X main.version=v0.1.0 -X main.commit=… -X main.buildDate=…".
// Where they are empty, buildInfo falls back on the VCS stamp go build records.
var (
	version   = "dev"
	commit    = ""
	buildDate = ""
)

// BuildInfo is what gpucost version prints (buildinfo.Info).
type BuildInfo = buildinfo.Info

// nvmlCompiled says whether this build can load NVML (buildinfo.NVML).
const nvmlCompiled = buildinfo.NVML

// buildInfo reads the linker's variables, then the module's VCS stamp for what they leave out.
func buildInfo() BuildInfo { return buildinfo.Read(version, commit, buildDate) }

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date, Go version and whether NVML support is built in",
		Example: `  gpucost version
  gpucost --version
  gpucost version --output json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.print(present.Version(buildInfo()))
		},
	}
}

// addVersionFlag gives root a --version flag printing BuildInfo's one line. It is gpucost's
// own flag, not cobra's Version field: cobra prints that through text/template, whose
// reflect.Value.MethodByName keeps every exported method in the binary (docs/architecture.md
// "Binary size").
func addVersionFlag(root *cobra.Command, e *env) {
	version := root.Flags().Bool("version", false, "print the version, commit, build date and Go version on one line")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if *version {
			_, err := fmt.Fprintln(e.stdout, buildInfo().String())
			return err
		}
		return cmd.Help()
	}
}
