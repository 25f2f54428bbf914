package lab

// NodePort range of a default Kubernetes service-node-port-range.
const (
	minNodePort = 30000
	maxNodePort = 32767
)

// allocatePorts gives every tenant without explicit ports the next free
// NodePorts above the defaults, skipping every port set explicitly anywhere in
// the lab, so allocation never collides with an override.
func (l *Lab) allocatePorts() {
	used := map[int32]bool{}
	for _, t := range l.Tenants {
		used[t.Ports.APIServer] = true
		used[t.Ports.Konnectivity] = true
	}
	// Each kind of port searches on from where it last stopped: every port
	// below that is taken, so thousands of tenants cost one pass, not one
	// pass each.
	next := func(p *int32, from *int32) {
		if *p != 0 {
			return
		}
		for ; *from <= maxNodePort; *from++ {
			if !used[*from] {
				*p, used[*from] = *from, true
				return
			}
		}
	}
	api, konn := int32(defaultAPIServerPort), int32(defaultKonnectivityPort)
	for i := range l.Tenants {
		next(&l.Tenants[i].Ports.APIServer, &api)
		next(&l.Tenants[i].Ports.Konnectivity, &konn)
	}
}
