package run

import (
	"strings"
	"testing"
)

// Each image says whether the rehearsal built it from source, and a
// figure that was not taken says so instead of a number.
func TestReportImagesAndFigures(t *testing.T) {
	r := Report{Images: []imageSource{
		{Ref: "a:1", ID: "sha256:0123456789abcdef", Built: true, Source: "k8s.io/kubernetes@v1.36.4"},
		{Ref: "b:1", Built: true},
		{Ref: "c:1", ID: "sha256:ff"},
		{Ref: "d:1", Err: "docker image inspect d:1: exit status 1: No such image"},
	}}
	md := r.markdown()
	for _, want := range []string{
		"| a:1 | 0123456789ab | yes: k8s.io/kubernetes@v1.36.4 |",
		"| b:1 | — | yes |",
		"| c:1 | ff | no (as the bundle holds it) |",
		"| d:1 | — | unknown: docker image inspect d:1: exit status 1: No such image |",
		"2 of 4 images were built from source",
		"No stage recorded", "The suite did not run",
		"page cache included): not measured",
		"largest of 0 samples): not measured",
		"| helm | unknown |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "did not finish") || strings.Contains(md, "## Cleanup") {
		t.Errorf("report has a failure or cleanup section it was not given:\n%s", md)
	}
}
