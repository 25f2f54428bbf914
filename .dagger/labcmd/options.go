package labcmd

import (
	"errors"
	"fmt"
	"regexp"
)

// Suite selects and paces the conformance suite.
type Suite struct {
	// Run is a regular expression over case IDs and names ("" = all).
	Run string
	// Parallel caps concurrent cases (0 = labctl's default: no limit).
	Parallel int
}

// Check reports every bad option at once, naming the flag and the fix.
func (s Suite) Check() error {
	var errs []error
	if s.Run != "" {
		if _, err := regexp.Compile(s.Run); err != nil {
			errs = append(errs, fmt.Errorf("--run %q: not a regular expression (%v); example: --run 'TC-0[1-4]'", s.Run, err))
		}
	}
	if s.Parallel < 0 {
		errs = append(errs, fmt.Errorf("--parallel %d: must be 0 (labctl's default) or a positive number of concurrent cases", s.Parallel))
	}
	return errors.Join(errs...)
}
