package stages

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	kindlog "sigs.k8s.io/kind/pkg/log"
)

// kindLogger sends kind's messages to slog: warnings and errors as such,
// kind's V(0) status lines ("Ensuring node image", "Writing configuration")
// and V(1) details at debug level, so `labctl -v` shows what kind is doing
// and the default stays silent.
type kindLogger struct{ log *slog.Logger }

var _ kindlog.Logger = kindLogger{}

func (k kindLogger) Warn(m string)                        { k.log.Warn(strings.TrimSpace(m), "from", "kind") }
func (k kindLogger) Warnf(f string, a ...any)             { k.Warn(fmt.Sprintf(f, a...)) }
func (k kindLogger) Error(m string)                       { k.log.Error(strings.TrimSpace(m), "from", "kind") }
func (k kindLogger) Errorf(f string, a ...any)            { k.Error(fmt.Sprintf(f, a...)) }
func (k kindLogger) V(l kindlog.Level) kindlog.InfoLogger { return kindInfo{k.log, l} }

type kindInfo struct {
	log   *slog.Logger
	level kindlog.Level
}

func (i kindInfo) Enabled() bool {
	return i.level <= 1 && i.log.Enabled(context.Background(), slog.LevelDebug)
}
func (i kindInfo) Info(m string) {
	if i.Enabled() {
		i.log.Debug(strings.TrimSpace(m), "from", "kind", "v", int(i.level))
	}
}
func (i kindInfo) Infof(f string, a ...any) { i.Info(fmt.Sprintf(f, a...)) }
