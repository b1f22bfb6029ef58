package teleimport

import "github.com/gpucost/gpucost"

// formatOnly are the import telemetry flags that one format alone reads.
var formatOnly = []struct {
	flag   string
	format Format
}{{"gpu", NvidiaSMI}, {"start", SMIPmon}, {"interval", SMIPmon}}

// CheckFlags refuses a flag of import telemetry, given as given reports, that the format f does
// not read: --gpu is nvidia-smi's, --start and --interval nvidia-smi pmon's.
func CheckFlags(f Format, given func(flag string) bool) error {
	for _, fl := range formatOnly {
		if given(fl.flag) && f != fl.format {
			return gpucost.Errorf(gpucost.EInvalid, "--%s is for --format %s, not %s", fl.flag, fl.format, f)
		}
	}
	return nil
}
