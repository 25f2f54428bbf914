package timeline

import (
	"os"
	"strings"
	"testing"
	"time"
)

// line is a step line as ci/stages' stepLog writes it through labctl up
// --verbose's text handler.
func line(at, msg, stage, step string) string {
	return `time=` + at + ` level=DEBUG msg="` + msg + `" stage=` + stage + ` step="` + step + `" took=1s`
}

func TestParsePairsStartsAndEnds(t *testing.T) {
	log := strings.Join([]string{
		`time=2026-12-07T18:00:00.000Z level=INFO msg="stage started" stage=kamaji`,
		line("2026-12-07T18:00:00.100Z", "step started", "workers", "tenant a: join"),
		line("2026-12-07T18:00:00.200Z", "step started", "workers", "tenant b: join"),
		line("2026-12-07T18:00:02.100Z", "step done", "workers", "tenant b: join"),
		line("2026-12-07T18:00:03.100Z", "step failed", "workers", "tenant a: join"),
		line("2026-12-07T18:00:04.000Z", "step started", "workers", "never ends"),
		`not a line of slog's`,
	}, "\n")
	steps, err := Parse(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 {
		t.Fatalf("steps = %+v, want the two that ended", steps)
	}
	a, b := steps[0], steps[1]
	if a.Name != "tenant a: join" || !a.Failed || a.Took() != 3*time.Second || b.Name != "tenant b: join" || b.Failed ||
		b.Took() != 1900*time.Millisecond {
		t.Errorf("steps = %+v", steps)
	}
}

func TestParseRefusesAnEndWithoutAStart(t *testing.T) {
	_, err := Parse(strings.NewReader(line("2026-12-07T18:00:00Z", "step done", "gpus", "x")))
	if err == nil || !strings.Contains(err.Error(), `step "x" of stage gpus ended but never started`) {
		t.Errorf("err = %v", err)
	}
}

func TestCriticalPathFollowsWhatEachStepWaitedFor(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	s := func(name string, from, to float64) Step {
		return Step{Stage: "workers", Name: name, Start: t0.Add(time.Duration(from * float64(time.Second))),
			End: t0.Add(time.Duration(to * float64(time.Second)))}
	}
	steps := []Step{
		s("image", 0, 0.5),
		s("a start", 0.5, 10), s("b start", 0.5, 14),
		s("a join", 10, 30), s("b join", 14, 25),
		s("a tunnel", 30, 33), s("b tunnel", 25, 40),
		{Stage: "hami", Name: "other stage", Start: t0.Add(50 * time.Second), End: t0.Add(60 * time.Second)},
	}
	var got []string
	for _, p := range CriticalPath(steps, "workers") {
		got = append(got, p.Name)
	}
	if want := "image,b start,b join,b tunnel"; strings.Join(got, ",") != want {
		t.Errorf("critical path = %q, want %s", got, want)
	}
	md := Markdown(steps, []string{"cluster", "workers", "hami"})
	for _, want := range []string{"- **workers** 40.0 s: image (0.5 s) → b start (13.5 s) → b join (11.0 s) → b tunnel (15.0 s)",
		"| hami | other stage | +50.0 s | 10.0 s |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "**cluster**") {
		t.Errorf("Markdown lists a stage with no steps:\n%s", md)
	}
}

// Two short steps that overlap within the slack: each ended within 50 ms
// of the other's start. The path still ends, going back in time only.
func TestCriticalPathEndsOnStepsWithinTheSlackOfEachOther(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	steps := []Step{
		{Stage: "gpus", Name: "x", Start: ms(0), End: ms(20)},
		{Stage: "gpus", Name: "y", Start: ms(10), End: ms(30)},
		{Stage: "gpus", Name: "z", Start: ms(10), End: ms(25)},
	}
	done := make(chan []Step, 1)
	go func() { done <- CriticalPath(steps, "gpus") }()
	select {
	case path := <-done:
		if len(path) != 2 || path[0].Name != "x" || path[1].Name != "y" {
			t.Errorf("critical path = %+v, want x then y", path)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("CriticalPath did not return: it walks in a circle")
	}
}

// TestParseARealUpLog reads the log labctl up --verbose wrote on the real
// lab (the rehearsal of 2026-12-07 19:12, kept with its evidence): every
// stage has steps, the tenants stage's path ends on a TenantControlPlane's
// wait, and the workers stage's on its tunnel proof.
func TestParseARealUpLog(t *testing.T) {
	f, err := os.Open("../testdata/runs/2026-12-07-steps-timeline/labctl-up.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	steps, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) < 40 {
		t.Fatalf("%d steps read, want the 40 and more of the seed lab", len(steps))
	}
	ends := map[string]string{
		"cluster": "docker container inspect gpu-lab-control-plane",
		"tenants": "wait TenantControlPlane",
		"workers": "DaemonSet kube-system/konnectivity-agent",
		"gpus":    "GET services/hami-scheduler",
	}
	for _, st := range []string{"cluster", "kamaji", "tenants", "workers", "hami", "gpus"} {
		path := CriticalPath(steps, st)
		if len(path) == 0 {
			t.Errorf("stage %s: no critical path", st)
			continue
		}
		for i := 1; i < len(path); i++ {
			if !path[i-1].Start.Before(path[i].Start) {
				t.Errorf("stage %s: %q does not start before %q", st, path[i-1].Name, path[i].Name)
			}
		}
		if want, last := ends[st], path[len(path)-1].Name; want != "" && !strings.Contains(last, want) {
			t.Errorf("stage %s: critical path ends on %q, want a step with %q", st, last, want)
		}
	}
}
