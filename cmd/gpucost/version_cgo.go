//go:build cgo

package main

// nvmlCompiled says whether this build can load NVML: go-nvml needs cgo (telemetry/nvml).
const nvmlCompiled = true
