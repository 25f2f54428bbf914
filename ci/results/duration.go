package results

import (
	"encoding/json"
	"math"
	"time"
)

// Duration marshals as seconds (a float), which is what JUnit readers and
// people expect in a JSON report.
type Duration time.Duration

func (d Duration) Seconds() float64 { return time.Duration(d).Seconds() }

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.Seconds()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s float64
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	// Round: seconds*1e9 in float64 is often a hair below the integer
	// (1.001 s -> 1.000999999 s) and a plain conversion would truncate.
	*d = Duration(math.Round(s * float64(time.Second)))
	return nil
}
