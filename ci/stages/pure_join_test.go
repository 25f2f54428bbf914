package stages

import (
	"reflect"
	"testing"
)

// kubeadm join reads everything from the file the stage writes: kubeadm
// refuses most flags next to --config.
func TestJoinCommandReadsTheConfigFile(t *testing.T) {
	if !reflect.DeepEqual(joinCommand, []string{"kubeadm", "join", "--config", "/kind/kubeadm.conf"}) {
		t.Errorf("joinCommand = %q", joinCommand)
	}
}
