// Command tiny is the only program in the test image the docker package's
// tests build with `docker import`: it sleeps as PID 1, prints the
// container's addresses, or echoes its arguments.
package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		os.Args = append(os.Args, "sleep")
	}
	switch os.Args[1] {
	case "sleep":
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
		<-c
	case "addrs":
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, a := range addrs {
			fmt.Println(a.String())
		}
	case "echo":
		fmt.Println(strings.Join(os.Args[2:], " "))
	case "cat":
		b := make([]byte, 1<<16)
		n, _ := os.Stdin.Read(b)
		os.Stdout.Write(b[:n])
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}
