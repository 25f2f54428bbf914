package hamidouble

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// AdminPrefix is where the double, run as its own process, serves its test
// controls on --metrics-bind-address. HAMi has no such routes; they exist so
// the breakage tests can set faults and read counters of a double in
// another process.
const AdminPrefix = "/protocol-double/"

// State is what the double reports about itself on GET
// /protocol-double/state.
type State struct {
	// Config is the configuration it runs with (Rest, Client and Log are
	// not sent).
	Config Config `json:"config"`
	// Throttled says its API calls pass client-go's token bucket (a
	// clientset built from a rest.Config with KubeQPS > 0).
	Throttled   bool          `json:"throttled"`
	CountedPods int           `json:"countedPods"`
	Throttle    ThrottleStats `json:"throttle"`
	Faults      Faults        `json:"faults"`
}

// state reports the double's configuration, counters and faults.
func (d *double) state() State {
	return State{Config: d.cfg, Throttled: d.throttle != nil, CountedPods: d.countedPods(),
		Throttle: d.throttleStats(), Faults: d.currentFaults()}
}

// AdminTokenFileEnv names the environment variable holding the path of the
// file whose content (surrounding white space removed) is Config.AdminToken
// of the double run as a program (`labctl internal hami-double`).
const AdminTokenFileEnv = "GPU_LAB_DOUBLE_ADMIN_TOKEN_FILE"

// readAdminToken reads the token from the file named by AdminTokenFileEnv;
// "" when the variable is unset (the admin routes are then off).
func readAdminToken(getenv func(string) string) (string, error) {
	path := getenv(AdminTokenFileEnv)
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: admin token: %w (set %s to a readable file, or unset it to turn the admin routes off)",
			Banner, err, AdminTokenFileEnv)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("%s: admin token file %s is empty", Banner, path)
	}
	return token, nil
}

// adminHandler serves GET AdminPrefix+"state" and PUT AdminPrefix+"faults"
// (a JSON Faults, replacing the current ones) to requests carrying
// Config.AdminToken as a bearer token, and refuses every other one: the
// metrics listener is on loopback, where any local user can connect, and
// a fault changes what the tenant's scheduler decides.
func (d *double) adminHandler() http.Handler {
	return requireToken(d.cfg.AdminToken, d.adminRoutes())
}

func (d *double) adminRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+AdminPrefix+"state", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(d.state())
	})
	mux.HandleFunc("PUT "+AdminPrefix+"faults", func(w http.ResponseWriter, r *http.Request) {
		var f Faults
		dec := json.NewDecoder(io.LimitReader(r.Body, 1<<16))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			http.Error(w, fmt.Sprintf("%s: faults: %v", Banner, err), http.StatusBadRequest)
			return
		}
		d.setFaults(f)
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// requireToken passes only requests whose Authorization header is
// "Bearer <token>"; with no token nothing passes.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token == "" {
			http.Error(w, fmt.Sprintf("%s: the admin routes are off: the double was started without %s", Banner, AdminTokenFileEnv),
				http.StatusForbidden)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			http.Error(w,
				fmt.Sprintf("%s: admin routes need the token in the environment's work dir (Authorization: Bearer)", Banner),
				http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Remote controls a double running in another process through its admin
// routes, as the package's tests control a double in-process.
type Remote struct {
	// URL is http://<--metrics-bind-address>, without a trailing slash.
	URL string
	// Token is the double's Config.AdminToken.
	Token string
	// Err, when set, is returned by every call: the HAMi scheduler running
	// is not the double (a real HAMi binary has no test controls).
	Err error
}

// SetFaults replaces the double's faults.
func (r *Remote) SetFaults(f Faults) error {
	if r.Err != nil {
		return r.Err
	}
	body, err := json.Marshal(f)
	if err != nil {
		return err
	}
	_, err = r.do(http.MethodPut, "faults", body)
	return err
}

// State reads the double's configuration and counters.
func (r *Remote) State() (State, error) {
	if r.Err != nil {
		return State{}, r.Err
	}
	b, err := r.do(http.MethodGet, "state", nil)
	if err != nil {
		return State{}, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("%s at %s: state: %w", Banner, r.URL, err)
	}
	return s, nil
}

// CountedPods is State().CountedPods.
func (r *Remote) CountedPods() (int, error) {
	s, err := r.State()
	return s.CountedPods, err
}

// ThrottleStats is State().Throttle.
func (r *Remote) ThrottleStats() (ThrottleStats, error) {
	s, err := r.State()
	return s.Throttle, err
}

func (r *Remote) do(method, route string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, r.URL+AdminPrefix+route, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+r.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %s %s: %w", Banner, r.URL, method, route, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s at %s: %s %s: %s: %s", Banner, r.URL, method, route, resp.Status, bytes.TrimSpace(b))
	}
	return b, nil
}
