package labcmd

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
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

// GoProxy is where the module's Go builds fetch modules and check their
// sums: GOPROXY and GOSUMDB as `go help environment` and `go help
// module-auth` define them ("" keeps Go's default).
type GoProxy struct {
	Proxy string
	SumDB string
}

// Check reports every bad value at once, naming the option and the fix.
func (g GoProxy) Check() error {
	var errs []error
	if g.Proxy != "" {
		for _, p := range strings.FieldsFunc(g.Proxy, func(r rune) bool { return r == ',' || r == '|' }) {
			if p == "direct" || p == "off" {
				continue
			}
			if u, err := url.Parse(p); err != nil || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "file") ||
				(u.Host == "" && u.Scheme != "file") {
				errs = append(errs, fmt.Errorf("--goproxy %q: %q is not a proxy URL (https://, http:// or file://), "+
					"direct or off; example: --goproxy https://goproxy.example.com,direct", g.Proxy, p))
			}
		}
	}
	if f := strings.Fields(g.SumDB); len(f) > 2 || (g.SumDB != "" && len(f) == 0) {
		errs = append(errs, fmt.Errorf("--gosumdb %q: want off, a database name, or a name and its URL; "+
			"example: --gosumdb 'sum.golang.org https://goproxy.example.com/sumdb/sum.golang.org'", g.SumDB))
	} else if len(f) == 2 {
		if u, err := url.Parse(f[1]); err != nil || u.Scheme == "" || u.Host == "" {
			errs = append(errs, fmt.Errorf("--gosumdb %q: %q is not a URL; "+
				"example: --gosumdb 'sum.golang.org https://goproxy.example.com/sumdb/sum.golang.org'", g.SumDB, f[1]))
		}
	}
	return errors.Join(errs...)
}

// Env is the environment a Go build gets: only the variables set.
func (g GoProxy) Env() [][2]string {
	var env [][2]string
	if g.Proxy != "" {
		env = append(env, [2]string{"GOPROXY", g.Proxy})
	}
	if g.SumDB != "" {
		env = append(env, [2]string{"GOSUMDB", g.SumDB})
	}
	return env
}
