package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
)

// BenchmarkSuite reports, for the whole suite on the local environment with
// the lab's HAMi settings (the double throttling its API calls at the lab's
// --kube-qps/--kube-burst, kube-scheduler at the lab's backoff): wall time
// concurrent and --serial, the longest scenario and the wall's ratio to it,
// and TC-14's time, bind latencies and node-lock failures. Timings are
// reported, never asserted.
func BenchmarkSuite(b *testing.B) {
	e := wholeSeed(b)
	var conc, serial, longest, tc14, median, maxBind time.Duration
	var lockFailures float64
	for i := 0; i < b.N; i++ {
		for _, s := range []bool{false, true} {
			cfg := config(e)
			cfg.Serial = s
			start := time.Now()
			run, err := suite.Run(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			if !run.OK() {
				logRun(b, run)
				b.Fatalf("suite failed (serial=%v)", s)
			}
			if s {
				serial += time.Since(start)
				continue
			}
			conc += time.Since(start)
			longest += longestScenario(run)
			c := byID(run)["TC-14"]
			tc14 += time.Duration(c.Duration)
			median += seconds(c.Metrics["bind_seconds.median"])
			maxBind += seconds(c.Metrics["bind_seconds.max"])
			lockFailures += c.Metrics["lock_failures"]
		}
	}
	n := float64(b.N)
	b.ReportMetric(conc.Seconds()/n, "s/concurrent")
	b.ReportMetric(serial.Seconds()/n, "s/serial")
	b.ReportMetric(longest.Seconds()/n, "s/longest-scenario")
	b.ReportMetric(conc.Seconds()/longest.Seconds(), "wall/longest")
	b.ReportMetric(tc14.Seconds()/n, "s/TC-14")
	b.ReportMetric(median.Seconds()/n, "s/TC-14-bind-median")
	b.ReportMetric(maxBind.Seconds()/n, "s/TC-14-bind-max")
	b.ReportMetric(lockFailures/n, "TC-14-lock-failures")
}

// BenchmarkIdleBind reports how long one GPU pod takes from creation to
// bound when nothing else is scheduling: the webhook, HAMi's Filter and Bind
// at the lab's client rate, the finalizer releasing the node lock.
func BenchmarkIdleBind(b *testing.B) {
	e := wholeSeed(b)
	tenant := e.Tenants()[0]
	cs, err := kubernetes.NewForConfig(e.RESTConfig(tenant))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-idle-bind-"}}
	if ns, err = cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	defer cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	var total time.Duration
	for i := 0; i < b.N; i++ {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("idle-%d", i), Namespace: ns.Name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "pause", Resources: corev1.ResourceRequirements{
				Limits: corev1.ResourceList{gpus.ResourceGPU: resource.MustParse("1"), gpus.ResourceGPUMem: resource.MustParse("1000")},
			}}}},
		}
		w, err := cs.CoreV1().Pods(ns.Name).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + pod.Name})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := cs.CoreV1().Pods(ns.Name).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		bound := false
		timeout := time.After(time.Minute)
		for !bound {
			select {
			case ev := <-w.ResultChan():
				if p, ok := ev.Object.(*corev1.Pod); ok && p.Spec.NodeName != "" {
					bound = true
				}
			case <-timeout:
				b.Fatalf("pod %s not bound within a minute", pod.Name)
			}
		}
		total += time.Since(start)
		w.Stop()
		zero := int64(0)
		if err := cs.CoreV1().Pods(ns.Name).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			b.Fatal(err)
		}
		// Let HAMi's usage and the node lock settle, so every pod finds it idle.
		time.Sleep(500 * time.Millisecond)
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/idle-bind")
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// longestScenario is the longest chain of cases that must run in order: a
// scenario's cases from the first start to the last end, or one
// independent case.
func longestScenario(run *results.Run) time.Duration {
	type span struct{ start, end time.Time }
	spans := map[string]*span{}
	var longest time.Duration
	for _, c := range run.Cases {
		end := c.Started.Add(time.Duration(c.Duration))
		if c.Scenario == "" {
			longest = max(longest, time.Duration(c.Duration))
			continue
		}
		s, ok := spans[c.Scenario]
		if !ok {
			spans[c.Scenario] = &span{c.Started, end}
			continue
		}
		if c.Started.Before(s.start) {
			s.start = c.Started
		}
		if end.After(s.end) {
			s.end = end
		}
	}
	for _, s := range spans {
		longest = max(longest, s.end.Sub(s.start))
	}
	return longest
}
