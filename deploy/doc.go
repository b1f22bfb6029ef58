// Package deploy holds where gpucost runs, as files: the Helm chart (helm/gpucost), the plain
// manifests rendered from it (manifests), the systemd units (systemd), the Grafana dashboard
// (grafana) and the daemonless image builder (image). Its tests render and check them
// (docs/deploy.md).
package deploy
