package lab

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateNodeNames checks the name every worker's container gets
// (NodeName, the one the stages use): at most maxNodeNameLen characters, no
// two workers with one container, and none with the management cluster's
// node container. Names that are invalid or duplicate on their own are left
// out: their problem is reported where it is, once.
func (l *Lab) validateNodeNames(tp *field.Path) field.ErrorList {
	if len(validateName(nil, l.Name)) > 0 {
		return nil
	}
	var errs field.ErrorList
	management := l.ManagementNodeName()
	seen := map[string]string{} // node name → the worker that has it
	tenants := map[string]bool{}
	for ti, t := range l.Tenants {
		if len(validateName(nil, t.Name)) > 0 || tenants[t.Name] {
			continue
		}
		tenants[t.Name] = true
		workers := map[string]bool{}
		for wi, w := range t.Workers {
			if len(validateName(nil, w.Name)) > 0 || workers[w.Name] {
				continue
			}
			workers[w.Name] = true
			p := tp.Index(ti).Child("workers").Index(wi)
			n := l.NodeName(t.Name, w.Name)
			switch other, taken := seen[n]; {
			case len(n) > maxNodeNameLen:
				errs = append(errs, field.Invalid(p.Child("name"), w.Name, fmt.Sprintf(
					"the node name %q (<lab>-<tenant>-<worker>) is %d characters; shorten the lab, "+
						"tenant or worker name to fit %d", n, len(n), maxNodeNameLen)))
			case n == management:
				errs = append(errs, field.Invalid(p.Child("name"), w.Name, fmt.Sprintf(
					"the node name %q (<lab>-<tenant>-<worker>) is the management cluster's node container (kind "+
						"names it <lab>-control-plane); rename the tenant or the worker", n)))
			case taken:
				errs = append(errs, field.Invalid(p.Child("name"), w.Name, fmt.Sprintf(
					"the node name %q (<lab>-<tenant>-<worker>) is also %s's: two workers would share one container; "+
						"rename a tenant or a worker", n, other)))
			default:
				seen[n] = p.String()
			}
		}
	}
	return errs
}
