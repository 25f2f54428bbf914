//go:build !linux

package testenv

import (
	"net"
	"strconv"
	"syscall"
	"time"
)

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// listensOn cannot see which process owns a socket without /proc; a port
// that answers is taken to be the component's.
func listensOn(_ int, ports []int) bool {
	for _, p := range ports {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)), time.Second)
		if err != nil {
			return false
		}
		c.Close()
	}
	return true
}

// suspended cannot be told without /proc.
func suspended(int) bool { return false }

func threadStates(int) string { return "" }
