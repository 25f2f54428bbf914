package assert

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// Verdict is kube-scheduler's "unschedulable" verdict for one pod, as found
// in the PodScheduled=False condition or a FailedScheduling event:
//
//	0/2 nodes are available: 1 1/1 CardInsufficientMemory, 1 node(s) didn't match ... preemption: ...
type Verdict struct {
	// Available and Total are the "<available>/<total> nodes are available" counts.
	Available, Total int
	// Reasons are HAMi's reasons found in the message.
	Reasons []Reason
	Message string
}

// Reason is one HAMi Filter reason inside a verdict. Card-level reasons carry
// "<failing>/<cards>" (cards failing on the node / cards on the node);
// node-level reasons (NodeInsufficientDevice) carry neither.
type Reason struct {
	Word           string
	Failing, Cards int
}

func (r Reason) String() string {
	if r.Cards == 0 {
		return r.Word
	}
	return fmt.Sprintf("%d/%d %s", r.Failing, r.Cards, r.Word)
}

// hamiReasons are the words HAMi puts in FailedNodes (gpus.Reason*).
var hamiReasons = []string{
	gpus.ReasonCardInsufficientMemory, gpus.ReasonCardInsufficientCore, gpus.ReasonCardTypeMismatch,
	gpus.ReasonCardUUIDMismatch, gpus.ReasonCardNotHealth, gpus.ReasonCardCordoned, gpus.ReasonCardTimeSlicing,
	gpus.ReasonExclusiveConflict, gpus.ReasonComputeUnitsExhausted, gpus.ReasonNodeInsufficientDevice,
}

var (
	headRE   = regexp.MustCompile(`^(\d+)/(\d+) nodes are available`)
	reasonRE = regexp.MustCompile(`(?:\b(\d+)/(\d+) )?\b(` + strings.Join(hamiReasons, "|") + `)\b`)
)

// ParseVerdict reads a kube-scheduler unschedulable message. Only the part
// before "preemption:" is read: the preemption part repeats node counts but
// never HAMi's reasons.
func ParseVerdict(msg string) (Verdict, error) {
	v := Verdict{Message: msg}
	m := headRE.FindStringSubmatch(msg)
	if m == nil {
		return v, fmt.Errorf("not a kube-scheduler verdict (no \"<n>/<m> nodes are available\"): %q", msg)
	}
	v.Available, _ = strconv.Atoi(m[1])
	v.Total, _ = strconv.Atoi(m[2])
	head, _, _ := strings.Cut(msg, "preemption:")
	for _, r := range reasonRE.FindAllStringSubmatch(head, -1) {
		rs := Reason{Word: r[3]}
		if r[1] != "" {
			rs.Failing, _ = strconv.Atoi(r[1])
			rs.Cards, _ = strconv.Atoi(r[2])
		}
		v.Reasons = append(v.Reasons, rs)
	}
	return v, nil
}

// Reason returns the verdict's entry for a HAMi reason word.
func (v Verdict) Reason(word string) (Reason, bool) {
	for _, r := range v.Reasons {
		if r.Word == word {
			return r, true
		}
	}
	return Reason{}, false
}

// Unschedulable checks that msg is kube-scheduler refusing the pod on every
// node, for one of the given HAMi reasons, and returns the reason found.
func Unschedulable(msg string, want ...string) (Reason, error) {
	v, err := ParseVerdict(msg)
	if err != nil {
		return Reason{}, err
	}
	if v.Available != 0 {
		return Reason{}, fmt.Errorf("scheduler says %d/%d nodes are available, want 0: %q", v.Available, v.Total, msg)
	}
	for _, w := range want {
		if r, ok := v.Reason(w); ok {
			return r, nil
		}
	}
	found := "no HAMi reason"
	if len(v.Reasons) > 0 {
		var s []string
		for _, r := range v.Reasons {
			s = append(s, r.String())
		}
		found = strings.Join(s, ", ")
	}
	return Reason{}, fmt.Errorf("pod is Pending for %s, want %s (scheduler: %q)", found, strings.Join(want, " or "), msg)
}

// HAMi's words for why a pod is not placed or not bound, as kube-scheduler
// passes them on in the PodScheduled=False condition and the
// FailedScheduling event (HAMI-FACTS.md §2, §5.2).
const (
	// NodeUnregistered is Filter's answer for a node whose devices HAMi has
	// not registered yet: `failedNodes[nodeID] = "node unregistered"` in
	// pkg/scheduler/scheduler.go (HAMi v2.10.0).
	NodeUnregistered = "node unregistered"
	// NodeLockContention ends both of Bind's lock errors, "node <n> is
	// locked: node lock contention" and "node <n> has been locked within
	// <timeout>: node lock contention": ErrNodeLockContention in
	// pkg/util/nodelock/nodelock.go (HAMi v2.10.0).
	NodeLockContention = "node lock contention"
)

// Cause says in a person's words what a scheduler verdict (a condition or
// event message) names as the obstacle, and "" when it names nothing the
// suite knows: the caller then shows the verdict alone, never a guess.
func Cause(msg string) string {
	switch {
	case strings.Contains(msg, NodeUnregistered):
		// HAMi v2.10.0 registers a node's cards when the Node is added and
		// then on `time.NewTicker(time.Second * 15)` in
		// RegisterFromNodeAnnotations (pkg/scheduler/scheduler.go).
		return "HAMi had not registered the node's cards (it registers them when the Node is added and then every 15 s; " +
			"kube-scheduler retries a pod rejected this way only after its 5-minute unschedulable flush)"
	case strings.Contains(msg, NodeLockContention):
		return "HAMi's node lock was held by another pod's bind"
	}
	v, err := ParseVerdict(msg)
	if err != nil || len(v.Reasons) == 0 {
		return ""
	}
	var rs []string
	for _, r := range v.Reasons {
		rs = append(rs, r.String())
	}
	return "HAMi's filter found no card that fits: " + strings.Join(rs, ", ")
}
