package imagebuild

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Result is what became of one image.
type Result struct {
	Ref  string
	Kind kind
	// Local is the name the image has on the daemon ("" when not built).
	Local string
	ID    string
	Took  time.Duration
	// Reused means a finished build was found (daemon or cache).
	Reused bool
	// Err says why it was not built; Log is where to read more.
	Err error
	Log string
}

// Report is the outcome of a run: every image and the differences from
// upstream's published images.
type Report struct {
	Results     []Result
	Differences []string
	// Stopped says why the run did not start (Prerequisites).
	Stopped error
}

// Failed are the results without an image.
func (r Report) Failed() []Result {
	var out []Result
	for _, res := range r.Results {
		if res.ID == "" {
			out = append(out, res)
		}
	}
	return out
}

// Write prints the report: a table of images, then the differences.
func (r Report) Write(w io.Writer) {
	if r.Stopped != nil {
		fmt.Fprintf(w, "%v\n\n", r.Stopped)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "IMAGE\tHOW\tRESULT")
	results := append([]Result(nil), r.Results...)
	sort.SliceStable(results, func(i, j int) bool { return results[i].Ref < results[j].Ref })
	for _, res := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", res.Ref, res.Kind, res.outcome())
	}
	tw.Flush()
	if len(r.Differences) > 0 {
		fmt.Fprintln(w, "\nDifferences from upstream's published images:")
		for _, d := range r.Differences {
			fmt.Fprintf(w, "  - %s\n", d)
		}
	}
}

func (res Result) outcome() string {
	switch {
	case res.ID == "" && res.Err != nil:
		s := "NOT BUILT: " + res.Err.Error()
		if res.Log != "" && !strings.Contains(s, res.Log) {
			s += " (log " + res.Log + ")"
		}
		return strings.ReplaceAll(s, "\n", " ")
	case res.ID == "":
		return "NOT BUILT"
	case res.Reused:
		return "reused " + shortID(res.ID)
	default:
		return fmt.Sprintf("built %s in %s", shortID(res.ID), res.Took.Round(time.Second))
	}
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
