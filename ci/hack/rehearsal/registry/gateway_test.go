package registry

import (
	"os"
	"testing"
)

func TestParseGatewayReadsRecordedIPOutput(t *testing.T) {
	b, err := os.ReadFile("testdata/ip-4-o-addr-show-docker0.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseGateway(string(b))
	if err != nil || got != "172.17.0.1" {
		t.Fatalf("parseGateway = %q, %v; want 172.17.0.1", got, err)
	}
	if _, err := parseGateway(""); err == nil {
		t.Fatal("parseGateway of no output: want an error")
	}
}
