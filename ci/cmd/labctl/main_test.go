package main

import (
	"os"
	"testing"
)

// TestMain lets this test binary stand in for labctl where a test starts
// labctl itself: runTestenvUp runs the HAMi protocol double as the program
// it is (os.Executable), which here is the test binary, and testenv.Start
// asks it for `internal hami-double … --help` before anything else starts.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "internal" && os.Args[2] == "hami-double" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
