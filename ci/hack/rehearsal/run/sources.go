package run

import (
	"context"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// The labels the rehearsal's image build puts on every image it builds:
// the build's cache key, and upstream's name of the content.
const (
	buildKeyLabel    = imagespec.KeyLabel
	buildSourceLabel = imagespec.SourceLabel
)

// labelReader is what ImageSources needs of the daemon.
type labelReader func(name string) (map[string]string, error)

// imageSources says for each image of the bundle whether the rehearsal's
// build made it from source, by its labels on the daemon after labctl up
// loaded the bundle. An image is looked up by the ID its index entry
// records when there is one: a digest-pinned reference is known to the
// daemon only by its ID once loaded (ci/images Loaded).
func imageSources(entries []images.Entry, labels labelReader) []imageSource {
	out := make([]imageSource, 0, len(entries))
	for _, e := range entries {
		s := imageSource{Ref: e.Ref, ID: e.ID}
		name := e.ID
		if name == "" {
			name = e.Ref
		}
		l, err := labels(name)
		if err != nil {
			s.Err = err.Error()
		} else if _, ok := l[buildKeyLabel]; ok {
			s.Built, s.Source = true, l[buildSourceLabel]
		}
		out = append(out, s)
	}
	return out
}

func (d Deps) labels(ctx context.Context, p Paths) labelReader {
	return func(name string) (map[string]string, error) { return d.Probe.imageLabels(ctx, p, name) }
}
