// Command probe is the only program in the image the hostdaemon
// integration test builds with `docker import`: it sleeps as PID 1, prints
// its own /proc/self/status capability lines, or the container's addresses.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	mode := "sleep"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "sleep":
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
		<-c
	case "caps":
		f, err := os.Open("/proc/self/status")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "Cap") {
				fmt.Println(sc.Text())
			}
		}
	case "addrs":
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, a := range addrs {
			fmt.Println(a.String())
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		os.Exit(2)
	}
}
