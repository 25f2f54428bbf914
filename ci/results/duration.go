package results

import (
	"encoding/json"
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
	*d = Duration(s * float64(time.Second))
	return nil
}
