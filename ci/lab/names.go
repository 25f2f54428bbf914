package lab

// MaxNodeNameLen bounds a worker's node name: it is also the worker
// container's hostname, which the kubelet registers as the node name, and a
// Linux hostname holds at most 64 bytes (63 for a DNS label).
const MaxNodeNameLen = 63

// NodeName is the worker's container name, hostname and tenant node name:
// "<lab>-<tenant>-<worker>". Every package that needs the name asks here.
func (l *Lab) NodeName(tenant, worker string) string {
	return l.Name + "-" + tenant + "-" + worker
}
