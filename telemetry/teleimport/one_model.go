package teleimport

import (
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// OneModel returns the one GPU model the samples of the files at paths name (Models), which
// import telemetry --price prices; files of several models, or of none, are an EInvalid error
// that names them and asks for --model.
func OneModel(paths []string, o Options) (string, error) {
	models, err := Models(paths, o)
	if err != nil {
		return "", err
	}
	if len(models) != 1 || models[0] == "" {
		named := strings.Join(slices.DeleteFunc(models, func(s string) bool { return s == "" }), ", ")
		if named == "" {
			named = "no model"
		}
		return "", gpucost.Errorf(gpucost.EInvalid, "--price prices one GPU model, and the samples name %s: give --model, or import each model's files with its own --price", named)
	}
	return models[0], nil
}
