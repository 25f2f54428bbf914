package testenv

// tuning is a command-line flag or environment variable the environment
// gives a component only so that it starts faster or holds less memory:
// what it is, why nothing the suite proves depends on what it turns off,
// where upstream defines it, and what it was measured to save (the report
// of issue 14 has the runs). Everything else on a component's command line
// makes the component work here at all (ports, certificates, tenancy).
type tuning struct {
	arg    string // "--flag=value" or, for env, "NAME=value"
	why    string
	source string // repo@version:path where the flag or variable is defined
}

func tuningArgs(ts []tuning) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.arg
	}
	return out
}

// controllerManagerTuning is added to every tenant kube-controller-manager's
// command line.
var controllerManagerTuning = []tuning{
	{
		// With --use-service-account-credentials (kept, so each controller
		// acts under its own RBAC role as in the real lab) the manager gets
		// a ServiceAccount and a token for every controller it builds,
		// one after the other through one client limited to 20 requests a
		// second (burst 30): on a fresh tenant that alone took 1.2 s before
		// the first controller ran (measured: default ServiceAccount 2.2 s
		// after the manager's start, 0.9-1.1 s with this).
		arg:    "--kube-api-qps=200",
		why:    "the manager's start is a burst of requests to an idle API server; its default client limit (20/s) spaced them out",
		source: "k8s.io/controller-manager@v0.36.3:options/generic.go",
	},
	{
		arg:    "--kube-api-burst=400",
		why:    "with --kube-api-qps: the start's burst passes unthrottled",
		source: "k8s.io/controller-manager@v0.36.3:options/generic.go",
	},
}
