package suite

import (
	"cmp"
	"context"
	"slices"
)

// Case is one conformance case as listed by Cases.
type Case struct {
	ID    string
	Title string
	// Asserts says what the case checks and how.
	Asserts string
	// Needs says what hardware the case needs; a lab without it skips the
	// case with that reason.
	Needs string
	// Core marks the seed lab's eight checks: a core case skipped is shown
	// in the summary and fails the run with Config.FailOnSkip.
	Core bool
}

// caseDecl is one case, declared once in its scenario's file: what --list,
// the README's table and every report say of it (Case), where the plan
// puts it on a lab, and its body.
type caseDecl struct {
	Case
	// place says where the case runs on a lab, or why it cannot
	// (placement.go).
	place placeRule
	// after are cases of the same scenario whose state this one uses: it
	// runs after them and is blocked when they did not pass.
	after []string
	// run is the body, given the plan's stage for its placement and the
	// state its scenario shares.
	run func(ctx context.Context, t *caseT, s *stage) error
}

// declared is every case in the order the plan places them, which is also
// the order tasks start in with --parallel or --serial: the independent
// control-plane and isolation cases, the sharing scenario, the two-card
// one, then the cases with a worker or card of their own.
var declared = slices.Concat(controlCases, isolationCases, pluginCases, shareCases, allocEnvCases,
	multiCardCases, burstCases, nodePolicyCases, bindPhaseCases)

// catalog is the case list, in ID order; titles are the same in code, CLI
// selection and every report.
var catalog = byID(declared)

func byID(ds []caseDecl) []Case {
	out := make([]Case, len(ds))
	for i, d := range ds {
		out[i] = d.Case
	}
	slices.SortFunc(out, func(a, b Case) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// What the GPU cases need, in the words of --list and skip reasons.
const (
	needsShare = "a card of at least 4 MB (sizes scale with the card)"
	needsPair  = "a worker with two or more cards"
)

// Cases lists every case, in ID order.
func Cases() []Case { return append([]Case(nil), catalog...) }

func caseByID(id string) Case {
	for _, c := range catalog {
		if c.ID == id {
			return c
		}
	}
	panic("unknown case " + id)
}
