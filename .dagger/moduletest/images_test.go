package moduletest

import (
	"go/ast"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dagger/gpu-lab/labcmd"
)

// The module fetches images and charts through Dagger's cache: bundle()
// asks labctl for the index, pulls each reference with From, exports it
// with AsTarball, has labctl record each tarball's digests in the index
// (RecordBundleIndex, checked by CheckRecorded), puts the charts chartArchives pulled under
// labcmd.BundleChartsDir, and touches no Docker service (so Dagger may
// cache all of it); start() mounts the bundle where labcmd.Up's --images
// points.
func TestImagesComeThroughDaggersCache(t *testing.T) {
	m := parseModule(t)
	b, ok := m.funcs["Lab.bundle"]
	if !ok {
		t.Fatal("Lab.bundle is missing")
	}
	c := calls(b)
	for _, want := range []string{"BundleIndex", "ParseBundleIndex", "From", "AsTarball", "WithFile", "RecordBundleIndex", "CheckRecorded",
		"charts", "Sync"} {
		if !c[want] {
			t.Errorf("Lab.bundle does not call %s", want)
		}
	}
	// The charts come from --charts, every archive checked to be there,
	// or are pulled (chartArchives).
	ch, ok := m.funcs["Lab.charts"]
	if !ok {
		t.Fatal("Lab.charts is missing")
	}
	for _, want := range []string{"chartArchives", "Entries", "MissingCharts", "File"} {
		if !calls(ch)[want] {
			t.Errorf("Lab.charts does not call %s", want)
		}
	}
	chartsUnder := false
	ast.Inspect(b, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithDirectory" && len(call.Args) == 2 {
				if arg, ok := call.Args[0].(*ast.SelectorExpr); ok && arg.Sel.Name == "BundleChartsDir" {
					chartsUnder = true
				}
			}
		}
		return true
	})
	if !chartsUnder {
		t.Error("Lab.bundle does not put the charts under labcmd.BundleChartsDir, where labctl looks for them")
	}
	for _, key := range []string{"Lab.bundle", "Lab.charts", "Lab.chartArchives"} {
		if m.sideEffecting()[key] {
			t.Errorf("%s reaches the Docker service; fetching images and charts must not", key)
		}
	}
	start := m.funcs["Lab.start"]
	mounted := false
	ast.Inspect(start, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithMountedDirectory" && len(call.Args) == 2 {
				if arg, ok := call.Args[0].(*ast.SelectorExpr); ok && arg.Sel.Name == "BundleDir" {
					mounted = true
				}
			}
		}
		return true
	})
	if !mounted || !calls(start)["bundle"] {
		t.Error("Lab.start does not mount the fetched bundle at labcmd.BundleDir")
	}
	up := labcmd.Up("cluster")
	if i := indexOf(up, "--images"); i < 0 || up[i+1] != labcmd.BundleDir {
		t.Errorf("labcmd.Up = %q: the stages do not get the bundle", up)
	}
}

// Each chart is pulled by the pinned helm, one exec per chart (so each is
// cached by its own command line), with labcmd.PullChart into the file the
// index names; the function says which pin is not immutable.
func TestChartsComeThroughDaggersCache(t *testing.T) {
	m := parseModule(t)
	fd, ok := m.funcs["Lab.chartArchives"]
	if !ok {
		t.Fatal("chartArchives is missing")
	}
	c := calls(fd)
	// The pinned helm is the lab's (Lab.Helm, built by GpuLab.helm).
	ast.Inspect(fd, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok && s.Sel.Name == "Helm" {
			c["helm"] = true
		}
		return true
	})
	for _, want := range []string{"From", "helm", "WithExec", "PullChart", "PulledChart", "File", "WithFile"} {
		if !c[want] {
			t.Errorf("chartArchives does not call %s", want)
		}
	}
	if c["WithMountedCache"] || c["CacheVolume"] {
		t.Error("chartArchives mounts a cache volume: its output must be cached by its inputs only")
	}
	inLoop := false
	ast.Inspect(fd, func(n ast.Node) bool {
		if r, ok := n.(*ast.RangeStmt); ok {
			ast.Inspect(r.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithExec" {
						inLoop = true
					}
				}
				return true
			})
		}
		return true
	})
	if !inLoop {
		t.Error("chartArchives does not run one exec per chart")
	}
	if doc := fd.Doc.Text(); !strings.Contains(doc, "0.0.0+latest") || !strings.Contains(doc, "not immutable") {
		t.Errorf("chartArchives' comment does not say that Kamaji's 0.0.0+latest is not immutable:\n%s", doc)
	}
}

// helm in the lab's runner needs no cache volume: every chart comes from
// the bundle. The only cache a lab run mounts is the DinD data root.
func TestLabRunnerMountsNoChartCache(t *testing.T) {
	m := parseModule(t)
	for _, key := range []string{"Lab.start", "Lab.tool", "Lab.bundle"} {
		fd, ok := m.funcs[key]
		if !ok {
			t.Fatalf("%s is missing", key)
		}
		if calls(fd)["WithMountedCache"] {
			t.Errorf("%s mounts a cache volume; charts come from the bundle", key)
		}
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// jsonKeys lists the JSON keys of the named struct types in f, each type's
// embedded structs (as named in f) expanded in place.
func jsonKeys(f *ast.File, typ string) []string {
	types := map[string]*ast.StructType{}
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if st, ok := ts.Type.(*ast.StructType); ok {
				types[ts.Name.Name] = st
			}
		}
		return true
	})
	var keys []string
	var walk func(name string)
	walk = func(name string) {
		st, ok := types[name]
		if !ok {
			return
		}
		for _, fld := range st.Fields.List {
			if len(fld.Names) == 0 {
				if id, ok := fld.Type.(*ast.Ident); ok {
					walk(id.Name)
				}
				continue
			}
			if fld.Tag == nil {
				continue
			}
			tag, _ := strconv.Unquote(fld.Tag.Value)
			key, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			keys = append(keys, key)
		}
	}
	walk(typ)
	return keys
}

// goKeys lists the JSON keys of a labcmd type.
func goKeys(v any) []string {
	var keys []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		keys = append(keys, t.Field(i).Tag.Get("json"))
	}
	return keys
}

// constString is the string constant name of f.
func constString(f *ast.File, name string) string {
	var out string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && vs.Names[0].Name == name && len(vs.Values) == 1 {
			out, _ = stringLit(vs.Values[0])
		}
		return true
	})
	return out
}

// labcmd's view of the index is labctl's: the same file name, charts
// directory and JSON keys as ci/images (Index, Entry, ChartEntry,
// IndexFile, ChartsDir).
func TestBundleIndexMatchesLabctl(t *testing.T) {
	bundle := parseRoot(t, "ci/images/bundle.go")
	charts := parseRoot(t, "ci/images/charts.go")
	keys := jsonKeys(bundle, "Entry")
	if len(keys) < 2 || keys[0] != "ref" || keys[1] != "file" {
		t.Errorf("ci/images.Entry JSON keys = %q, labcmd.BundleEntry reads ref and file", keys)
	}
	// The digests labctl records from the archives (--archives), which
	// CheckRecorded requires, are keys of ci/images.Entry.
	for _, k := range goKeys(labcmd.BundleEntry{}) {
		if k, _, _ = strings.Cut(k, ","); !slices.Contains(keys, k) {
			t.Errorf("labcmd.BundleEntry reads %q, ci/images.Entry has only %q", k, keys)
		}
	}
	if got, want := jsonKeys(bundle, "Index"), goKeys(labcmd.Bundle{}); !slices.Equal(got, want) {
		t.Errorf("ci/images.Index JSON keys = %q, labcmd.Bundle reads %q", got, want)
	}
	if got, want := jsonKeys(charts, "ChartEntry"), goKeys(labcmd.BundleChart{}); !slices.Equal(got, want) {
		t.Errorf("ci/images.ChartEntry JSON keys = %q, labcmd.BundleChart reads %q", got, want)
	}
	if got := constString(bundle, "IndexFile"); got != labcmd.BundleIndexFile {
		t.Errorf("ci/images.IndexFile = %q, labcmd.BundleIndexFile = %q", got, labcmd.BundleIndexFile)
	}
	if got := constString(charts, "ChartsDir"); got != labcmd.BundleChartsDir {
		t.Errorf("ci/images.ChartsDir = %q, labcmd.BundleChartsDir = %q", got, labcmd.BundleChartsDir)
	}
}

// The module's helm pull is labctl's (ci/internal/helm.PullArgs): the same
// subcommand and flags, in the same order, with the chart, repository,
// version and a destination directory in their places.
func TestPullChartIsLabctlsHelmPull(t *testing.T) {
	f := parseRoot(t, "ci/internal/helm/helm.go")
	var fd *ast.FuncDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == "PullArgs" {
			fd = d
		}
	}
	if fd == nil {
		t.Fatal("ci/internal/helm/helm.go has no PullArgs")
	}
	// PullArgs(name, repo, version, dest) → the script's variables.
	vars := map[string]string{"name": `"$name"`, "repo": `"$repo"`, "version": `"$version"`, "dest": `"$tmp"`}
	var line []string
	ast.Inspect(fd, func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok || line != nil {
			return true
		}
		line = []string{"helm"}
		for _, el := range cl.Elts {
			if s, ok := stringLit(el); ok {
				line = append(line, s)
			} else if id, ok := el.(*ast.Ident); ok && vars[id.Name] != "" {
				line = append(line, vars[id.Name])
			} else {
				t.Fatalf("ci/internal/helm.PullArgs has an element this test cannot map: %#v", el)
			}
		}
		return false
	})
	script := labcmd.PullChart(labcmd.BundleChart{}, "/out")[2]
	if want := strings.Join(line, " ") + "\n"; !strings.Contains(script, want) {
		t.Errorf("the pull script does not run labctl's helm pull %q:\n%s", want, script)
	}
}
