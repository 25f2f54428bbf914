package daggerbuild

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// LatestModuleProxy is the newest finished Go proxy tree under the
// layout (ModuleProxy's entries).
func (l Layout) LatestModuleProxy() (string, error) {
	entries, err := filepath.Glob(filepath.Join(l.Root, "proxy", "module-*"))
	if err != nil {
		return "", err
	}
	best, bestTime := "", int64(0)
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(e, ".done"))
		if err == nil && fi.ModTime().UnixNano() > bestTime {
			best, bestTime = filepath.Join(e, "goproxy"), fi.ModTime().UnixNano()
		}
	}
	if best == "" {
		return "", fmt.Errorf("no Go proxy tree under %s: build it with `rehearse dagger build`", filepath.Join(l.Root, "proxy"))
	}
	return best, nil
}

// ServeGoProxy serves the GOPROXY file tree over HTTP at addr until ctx
// ends (GoProxyHandler).
func ServeGoProxy(ctx context.Context, log *slog.Logger, tree, addr string) error {
	srv := &http.Server{Addr: addr, ReadHeaderTimeout: 10 * time.Second, Handler: GoProxyHandler(log, tree)}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	log.Info("serving the Go proxy tree", "tree", tree, "addr", addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("Go proxy at %s: %w", addr, err)
	}
	return nil
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }

// GoProxyHandler answers from the GOPROXY file tree, logging every
// request it cannot answer (a module the tree lacks shows there first).
func GoProxyHandler(log *slog.Logger, tree string) http.Handler {
	files := http.FileServer(http.Dir(tree))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		files.ServeHTTP(rec, r)
		if rec.status != http.StatusOK {
			log.Info("Go proxy: not served", "path", r.URL.Path, "status", rec.status)
		}
	})
}
