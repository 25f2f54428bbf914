package moduleimages

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WritePlan says what Build builds and how, building nothing.
func WritePlan(w io.Writer) {
	fmt.Fprintf(w, "%s: docker %s (docker/cli@%s, vendored, GOPATH mode); Debian %s: %s\n", CLIRef, DockerVersion, CLIPin.Tag, Suite,
		strings.Join(cliPackages, " "))
	fmt.Fprintf(w, "%s: the CLI image's content, dockerd and docker-proxy (moby/moby@%s, vendored), containerd %s and runc %s (Go module "+
		"proxy), hack/dind at %s, dockerd-entrypoint.sh; Debian %s: %s\n",
		DindRef, MobyPin.Tag, ContainerdVersion, RuncVersion, MobyPin.Tag, Suite, strings.Join(dindPackages, " "))
	fmt.Fprintf(w, "%s: this machine's Go toolchain at /usr/local/go; Debian %s: %s\n", GoRef, Suite, strings.Join(goPackages, " "))
	writeDifferences(w)
}

// Write prints each image's outcome and every difference.
func (r Report) Write(w io.Writer) {
	if r.Stopped != nil {
		fmt.Fprintf(w, "%v\n\n", r.Stopped)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "IMAGE\tRESULT\tARCHIVE")
	for _, res := range r.Results {
		outcome := "built " + res.ID
		if res.Err != nil {
			outcome = "NOT BUILT: " + strings.ReplaceAll(res.Err.Error(), "\n", " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", res.Ref, outcome, res.Archive)
	}
	tw.Flush()
	writeDifferences(w)
}

func writeDifferences(w io.Writer) {
	d := Differences()
	fmt.Fprintln(w, "\nDifferences from the published images:")
	for _, ref := range []string{CLIRef, DindRef, GoRef} {
		fmt.Fprintf(w, "  %s\n", ref)
		for _, x := range d[ref] {
			fmt.Fprintf(w, "    - %s\n", x)
		}
	}
}
