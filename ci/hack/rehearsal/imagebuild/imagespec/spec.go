// Package imagespec describes one image the rehearsal builds as a base plus
// files, non-privileged RUN steps and the image config, and builds it with
// `docker build` (the classic builder: the machine's Docker has no BuildKit
// plug-in). Everything about an image that can be got wrong without Docker
// (the Dockerfile, the cache key) is pure and tested.
package imagespec

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// KeyLabel is the image label holding the build's cache key: an image on
// the daemon with this ref and this label value is reused as it is.
const KeyLabel = "org.gpu-lab.rehearsal.key"

// SourceLabel says where upstream the image's content comes from.
const SourceLabel = "org.gpu-lab.rehearsal.source"

// Spec is one image.
type Spec struct {
	// Ref is the name the image is tagged with.
	Ref string
	// Base is the FROM image ("scratch" for none).
	Base string
	// Files are copied in, in order, before Run.
	Files []File
	// Run are shell commands run in the image (no privileges).
	Run        []string
	Entrypoint []string
	Cmd        []string
	User       string
	// WorkDir is the image's working directory (none when empty).
	WorkDir    string
	Env        []string // KEY=VALUE
	StopSignal string
	// Source is upstream's name of the content, for the label.
	Source string
}

// File is one file of an image: from a host file or from Data.
type File struct {
	Dest string
	Mode fs.FileMode
	// Src is a host path; when empty, Data is the content.
	Src  string
	Data []byte
}

// Dockerfile is the build's Dockerfile; file i of Files is at files/<i> in
// the build context (its mode set there: COPY keeps it). key is the cache
// key, recorded in KeyLabel.
func (s Spec) Dockerfile(key string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s\n", s.Base)
	for i, f := range s.Files {
		fmt.Fprintf(&b, "COPY files/%d %s\n", i, f.Dest)
	}
	for _, r := range s.Run {
		fmt.Fprintf(&b, "RUN %s\n", r)
	}
	for _, e := range s.Env {
		k, v, _ := strings.Cut(e, "=")
		fmt.Fprintf(&b, "ENV %s=%s\n", k, quote(v))
	}
	if s.WorkDir != "" {
		fmt.Fprintf(&b, "WORKDIR %s\n", s.WorkDir)
	}
	if s.User != "" {
		fmt.Fprintf(&b, "USER %s\n", s.User)
	}
	if s.StopSignal != "" {
		fmt.Fprintf(&b, "STOPSIGNAL %s\n", s.StopSignal)
	}
	if s.Entrypoint != nil {
		fmt.Fprintf(&b, "ENTRYPOINT %s\n", jsonArray(s.Entrypoint))
	}
	if s.Cmd != nil {
		fmt.Fprintf(&b, "CMD %s\n", jsonArray(s.Cmd))
	}
	labels := map[string]string{KeyLabel: key}
	if s.Source != "" {
		labels[SourceLabel] = s.Source
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "LABEL %s=%s\n", k, quote(labels[k]))
	}
	return b.String()
}

func jsonArray(s []string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
