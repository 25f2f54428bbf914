package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

// version is set by release builds (-ldflags "-X main.version=v1.2.3");
// otherwise the module version from the build info is shown.
var version = ""

func newVersionCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print labctl's version and commit and every pinned component version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := io.WriteString(s.out, cmd.Root().Version)
			return err
		},
	}
}

// versionText is labctl's version, the commit it was built from (with
// "+ local changes" when the tree was modified) and the pinned versions
// of what it installs. info is nil when the binary has no build info.
func versionText(info *debug.BuildInfo) string {
	var b strings.Builder
	st := stampOf(info)
	fmt.Fprintf(&b, "labctl %s\n", st.version)
	switch {
	case st.commit == "":
		b.WriteString("commit unknown (built outside a git checkout, or with -buildvcs=false)\n")
	default:
		fmt.Fprintf(&b, "commit %s", st.commit)
		if st.when != "" {
			fmt.Fprintf(&b, " (%s)", st.when)
		}
		if st.dirty {
			b.WriteString(" + local changes")
		}
		b.WriteString("\n")
	}
	if info != nil && info.GoVersion != "" {
		fmt.Fprintf(&b, "built with %s\n", info.GoVersion)
	}
	writePinnedVersions(&b)
	return b.String()
}

// buildStamp is what labctl's version line and commit line say.
type buildStamp struct {
	version, commit, when string
	dirty                 bool
}

// stampOf reads the stamp from the build info (nil: none): the release
// build's -X main.version, else the module version, else "development
// build"; the commit, its time and whether the tree was modified from the
// VCS settings.
func stampOf(info *debug.BuildInfo) buildStamp {
	st := buildStamp{version: version}
	if info != nil {
		if st.version == "" {
			st.version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				st.commit = s.Value
			case "vcs.time":
				st.when = s.Value
			case "vcs.modified":
				st.dirty = s.Value == "true"
			}
		}
	}
	if st.version == "" || st.version == "(devel)" {
		st.version = "development build"
	}
	return st
}

// writePinnedVersions writes the table of the versions labctl pins, which
// a lab file's versions: override.
func writePinnedVersions(b *strings.Builder) {
	b.WriteString("\npinned versions (a lab file's versions: overrides them)\n")
	d := lab.DefaultVersions()
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	for _, row := range [][2]string{
		{"tenant Kubernetes", d.Kubernetes + " (supported: " + strings.Join(lab.SupportedKubernetes(), ", ") + ")"},
		{"kind module", lab.KindModuleVersion},
		{"kind node image (management)", d.KindNodeImage},
		{"worker image", d.WorkerImage()},
		{"Kamaji chart", d.KamajiChart},
		{"Kamaji image", d.KamajiImage},
		{"cert-manager", d.CertManager},
		{"HAMi chart", d.HAMiChart},
		{"HAMi image", d.HAMiImage},
		{"HAMi mock device plugin", d.HAMiMockDevicePlugin},
		{"konnectivity", d.Konnectivity},
		{"helm CLI", helm.Version},
		{"local test environment Kubernetes", testenv.KubernetesVersion},
	} {
		fmt.Fprintf(tw, "  %s\t%s\n", row[0], row[1])
	}
	_ = tw.Flush() // a strings.Builder does not fail
}
