package lab

// NodePort range of a default Kubernetes service-node-port-range.
const (
	MinNodePort = 30000
	MaxNodePort = 32767
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
	next := func(p *int32, base int32) {
		if *p != 0 {
			return
		}
		for c := base; c <= MaxNodePort; c++ {
			if !used[c] {
				*p, used[c] = c, true
				return
			}
		}
	}
	for i := range l.Tenants {
		next(&l.Tenants[i].Ports.APIServer, DefaultAPIServerPort)
		next(&l.Tenants[i].Ports.Konnectivity, DefaultKonnectivityPort)
	}
}
