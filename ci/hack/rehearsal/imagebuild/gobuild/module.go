package gobuild

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// Module is what the Go module proxy says of one module version.
type Module struct {
	Path, Version string
	Dir           string // the extracted source in the module cache
	GoMod         string // its go.mod file
	Time          time.Time
}

// Download fetches path@version through the module proxy (`go mod
// download`, so the module cache and checksum database apply).
func Download(ctx context.Context, path, version string) (Module, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", path+"@"+version)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Dir = os.TempDir() // outside any module: no go.mod decides anything
	out, err := cmd.Output()
	var info struct {
		Path, Version, Dir, GoMod, Info, Error string
	}
	if jerr := json.Unmarshal(out, &info); jerr != nil && err == nil {
		err = jerr
	}
	if info.Error != "" {
		return Module{}, fmt.Errorf("go mod download %s@%s: %s", path, version, info.Error)
	}
	if err != nil {
		return Module{}, fmt.Errorf("go mod download %s@%s: %w", path, version, err)
	}
	m := Module{Path: info.Path, Version: info.Version, Dir: info.Dir, GoMod: info.GoMod}
	if b, err := os.ReadFile(info.Info); err == nil {
		var i struct{ Time time.Time }
		if json.Unmarshal(b, &i) == nil {
			m.Time = i.Time
		}
	}
	return m, nil
}

// GoModFacts are the lines of an upstream go.mod a wrapper module copies.
type GoModFacts struct {
	Go      string   // the go directive
	Godebug string   // the godebug line's value, "" when none
	Staging []string // modules replaced by "=> ./staging/...", sorted
}

// ReadGoModFacts reads an upstream go.mod.
func ReadGoModFacts(path string) (GoModFacts, error) {
	f, err := os.Open(path)
	if err != nil {
		return GoModFacts{}, err
	}
	defer f.Close()
	var facts GoModFacts
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		facts.add(sc.Text())
	}
	sort.Strings(facts.Staging)
	return facts, sc.Err()
}

// parseGoModFacts is ReadGoModFacts of go.mod text.
func parseGoModFacts(text string) GoModFacts {
	var facts GoModFacts
	for _, line := range strings.Split(text, "\n") {
		facts.add(line)
	}
	sort.Strings(facts.Staging)
	return facts
}

func (f *GoModFacts) add(raw string) {
	line := strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(line, "go "):
		f.Go = strings.TrimSpace(strings.TrimPrefix(line, "go "))
	case strings.HasPrefix(line, "godebug "):
		f.Godebug = strings.TrimSpace(strings.TrimPrefix(line, "godebug "))
	default:
		left, right, ok := strings.Cut(strings.TrimPrefix(line, "replace "), "=>")
		if !ok || !strings.HasPrefix(strings.TrimSpace(right), "./staging/") {
			return
		}
		if fields := strings.Fields(left); len(fields) > 0 {
			f.Staging = append(f.Staging, fields[0])
		}
	}
}
