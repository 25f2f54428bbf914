package steps

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// A Once step held by two trees is done by whichever runs it first; the
// other waits for it and gets its result, and the observer hears it once.
func TestOnceIsDoneOnceAndWaitedFor(t *testing.T) {
	var ran atomic.Int32
	began, release := make(chan struct{}), make(chan struct{})
	shared := Once(Seq(Do(func(context.Context) error {
		if ran.Add(1) == 1 {
			close(began)
		}
		<-release
		return nil
	}, "start the worker", "docker run …")))
	background := Seq(shared)
	stage := Seq(shared, Do(ok, "join the worker"))
	if got, want := stage.Plan(), []string{"start the worker", "docker run …", "join the worker"}; !slices.Equal(got, want) {
		t.Errorf("Plan() = %q, want %q", got, want)
	}
	if got, want := stage.Names(), []string{"start the worker", "join the worker"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}

	var r recorder
	bg := make(chan error, 1)
	go func() { bg <- background.Run(context.Background(), Options{Observer: &r}) }()
	<-began // the background is doing the shared step
	fg := make(chan error, 1)
	go func() { fg <- stage.Run(context.Background(), Options{Observer: &r}) }()
	select {
	case err := <-fg:
		t.Fatalf("the stage went past the shared step before the background finished it: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-bg; err != nil {
		t.Fatal(err)
	}
	if err := <-fg; err != nil {
		t.Fatal(err)
	}
	if n := ran.Load(); n != 1 {
		t.Errorf("the shared step ran %d times, want once", n)
	}
	if want := []string{"start the worker", "join the worker"}; !slices.Equal(r.started, want) {
		t.Errorf("observer heard %q, want %q", r.started, want)
	}
}

// A failure of the first Run is every later Run's failure; a waiter whose
// own context ends first returns its context's error.
func TestOnceSharesTheFailureAndHonoursTheWaitersContext(t *testing.T) {
	boom := errors.New("no such image")
	failed := Once(Do(func(context.Context) error { return boom }, "ensure the image"))
	for i := range 2 {
		if err := failed.Run(context.Background(), Options{}); !errors.Is(err, boom) {
			t.Errorf("run %d: %v, want %v", i+1, err, boom)
		}
	}

	began, block := make(chan struct{}), make(chan struct{})
	defer close(block)
	slow := Once(Do(func(context.Context) error { close(began); <-block; return nil }, "start"))
	go slow.Run(context.Background(), Options{}) //nolint:errcheck // the first Run blocks until the test ends
	<-began
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := slow.Run(ctx, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a waiter with a cancelled context got %v, want %v", err, context.Canceled)
	}
}
