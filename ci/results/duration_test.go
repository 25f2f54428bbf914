package results

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDurationRoundTripsThroughJSON(t *testing.T) {
	for _, d := range []time.Duration{0, time.Millisecond, 1001 * time.Millisecond, 1003 * time.Millisecond,
		83*time.Second + 17*time.Millisecond, 5*time.Minute + 2*time.Second + 999*time.Millisecond, 1234567891} {
		b, err := json.Marshal(Duration(d))
		if err != nil {
			t.Fatal(err)
		}
		var got Duration
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if time.Duration(got) != d {
			t.Errorf("%v marshalled as %s came back as %v", d, b, time.Duration(got))
		}
	}
}
