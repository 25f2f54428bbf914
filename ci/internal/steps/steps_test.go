package steps

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// recorder is an Observer keeping the names of the leaves that started and
// the errors they ended with.
type recorder struct {
	mu      sync.Mutex
	started []string
	ended   map[string]error
}

func (r *recorder) Started(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, name)
}

func (r *recorder) Ended(name string, _ time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended == nil {
		r.ended = map[string]error{}
	}
	r.ended[name] = err
}

func ok(context.Context) error { return nil }

func TestPlanListsEveryLineInRunOrder(t *testing.T) {
	s := Seq(
		Do(ok, "one", "one's note"),
		SideBySide("both below at once",
			Seq(Do(ok, "a1"), Do(ok, "a2")),
			Do(ok, "b"),
		),
		SideBySide("", Do(ok, "c")),
		Step{},
		Do(ok, "last\nwith a second line"),
	)
	want := []string{"one", "one's note", "both below at once", "a1", "a2", "b", "c", "last\nwith a second line"}
	if got := s.Plan(); !slices.Equal(got, want) {
		t.Errorf("Plan() = %q, want %q", got, want)
	}
	var r recorder
	if err := s.Run(context.Background(), Options{Observer: &r}); err != nil {
		t.Fatal(err)
	}
	// Every leaf ran, each once, named by its first line's first line.
	got := slices.Sorted(slices.Values(r.started))
	wantRan := []string{"a1", "a2", "b", "c", "last", "one"}
	if !slices.Equal(got, wantRan) {
		t.Errorf("ran %q, want %q", got, wantRan)
	}
	if names := slices.Sorted(slices.Values(s.Names())); !slices.Equal(names, wantRan) {
		t.Errorf("Names() = %q, want %q", names, wantRan)
	}
	if i, j := slices.Index(r.started, "a1"), slices.Index(r.started, "a2"); i > j {
		t.Errorf("a2 started before a1: %q", r.started)
	}
	if r.started[0] != "one" || r.started[len(r.started)-1] != "last" {
		t.Errorf("a list's steps ran out of order: %q", r.started)
	}
}

func TestSeqStopsAtTheFirstFailure(t *testing.T) {
	boom := errors.New("boom")
	var r recorder
	s := Seq(Do(ok, "first"), Do(func(context.Context) error { return boom }, "second"), Do(ok, "third"))
	if err := s.Run(context.Background(), Options{Observer: &r}); !errors.Is(err, boom) {
		t.Fatalf("Run() = %v, want %v", err, boom)
	}
	if want := []string{"first", "second"}; !slices.Equal(r.started, want) {
		t.Errorf("started %q, want %q", r.started, want)
	}
	if !errors.Is(r.ended["second"], boom) {
		t.Errorf("the observer heard second end with %v, want %v", r.ended["second"], boom)
	}
}

// Each of the two steps waits for the other to have started: they finish
// only when they run at the same time.
func TestSideBySideRunsAtTheSameTime(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	meet := func(context.Context) error {
		wg.Done()
		wg.Wait()
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- SideBySide("", Do(meet, "x"), Do(meet, "y")).Run(context.Background(), Options{}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the two steps never ran at the same time")
	}
}

// The first failure cancels the others, and it alone is returned.
func TestSideBySideReturnsTheFirstFailureAndCancelsTheRest(t *testing.T) {
	cause := errors.New("the cause")
	waiter := func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}
	err := SideBySide("", Do(waiter, "waits"), Do(func(context.Context) error { return cause }, "fails")).
		Run(context.Background(), Options{})
	if !errors.Is(err, cause) || errors.Is(err, context.Canceled) {
		t.Errorf("Run() = %v, want the cause alone", err)
	}
}

func TestNameIsTheFirstLinesFirstLine(t *testing.T) {
	for _, c := range []struct {
		say  []string
		want string
	}{
		{nil, ""},
		{[]string{"apply x:\n  yaml"}, "apply x:"},
		{[]string{"wait y", "note"}, "wait y"},
	} {
		if got := Name(c.say); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.say, got, c.want)
		}
	}
}
