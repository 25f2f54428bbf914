package gpus

import (
	"fmt"
	"strings"
	"time"
)

// LockValue is the hami.io/mutex.lock value HAMi's Bind writes:
// "<RFC3339 time>,<namespace>,<pod>".
func LockValue(t time.Time, namespace, pod string) string {
	return t.UTC().Format(time.RFC3339) + "," + namespace + "," + pod
}

// Lock is a parsed node lock. A legacy value (bare RFC3339) has no owner.
type Lock struct {
	Time      time.Time
	Namespace string
	Pod       string
}

// ParseLock parses a hami.io/mutex.lock value in either form.
func ParseLock(v string) (Lock, error) {
	parts := strings.Split(v, ",")
	t, err := time.Parse(time.RFC3339, parts[0])
	if err != nil {
		return Lock{}, fmt.Errorf("node lock %q: time: %w", v, err)
	}
	switch len(parts) {
	case 1:
		return Lock{Time: t}, nil
	case 3:
		return Lock{Time: t, Namespace: parts[1], Pod: parts[2]}, nil
	}
	return Lock{}, fmt.Errorf("node lock %q: want <RFC3339>,<namespace>,<pod>", v)
}

// OwnedBy reports whether the lock may be released on behalf of the pod: the
// value names it, or is a legacy owner-less value (as HAMi's ReleaseNodeLock).
func OwnedBy(v, namespace, pod string) bool {
	l, err := ParseLock(v)
	if err != nil {
		return false
	}
	if l.Pod == "" {
		return true
	}
	return l.Namespace == namespace && l.Pod == pod
}
