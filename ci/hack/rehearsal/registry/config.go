package registry

import (
	"fmt"
	"path/filepath"
)

// Port is where the registry listens inside the namespace.
const Port = 5000

// Layout is where a registry keeps its state: under the private daemon's
// directory, so one daemon's registry is found and removed with it.
type Layout struct{ Dir string }

// LayoutFor is the registry of the daemon whose state directory is
// daemonDir.
func LayoutFor(daemonDir string) Layout { return Layout{Dir: filepath.Join(daemonDir, "registry")} }

func (l Layout) config() string  { return filepath.Join(l.Dir, "config.yml") }
func (l Layout) storage() string { return filepath.Join(l.Dir, "storage") }
func (l Layout) pidFile() string { return filepath.Join(l.Dir, "registry.pid") }
func (l Layout) log() string     { return filepath.Join(l.Dir, "registry.log") }

// config is the registry's configuration (distribution@v3.1.1
// cmd/registry/config-example.yml's keys): filesystem storage under the
// layout, every address of the namespace on Port, no auth (only the
// namespace's own processes reach it), and the storage health check the
// example enables.
func config(l Layout) string {
	return fmt.Sprintf(`version: 0.1
log:
  level: info
  fields:
    service: registry
storage:
  cache:
    blobdescriptor: inmemory
  filesystem:
    rootdirectory: %s
http:
  addr: 0.0.0.0:%d
  headers:
    X-Content-Type-Options: [nosniff]
health:
  storagedriver:
    enabled: true
    interval: 10s
    threshold: 3
`, l.storage(), Port)
}
