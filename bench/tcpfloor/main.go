// Command tcpfloor measures the floor under a WebSocket fan-out on this
// machine: the same fan-out over plain loopback TCP, with no WebSocket, no
// JSON and no Herald. One process writes a small message to each of N
// connections (each write on a goroutine of its own, as Herald's writers
// run, or all from one loop); a child process holds the N receiving ends,
// one reading goroutine each as `herald bench ws` has, and reports the
// latency from the start of each round to every arrival.
//
//	go run ./bench/tcpfloor -connections 10000 -rounds 20
//
// The figures bound what any server can reach here with its clients on
// the same cores: BENCHMARKS.md compares them with `herald bench ws`.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"time"
)

func main() {
	var (
		n        = flag.Int("connections", 10000, "connections")
		rounds   = flag.Int("rounds", 20, "messages to every connection")
		interval = flag.Duration("interval", 500*time.Millisecond, "pause between rounds")
		size     = flag.Int("size", 400, "bytes per message (at least 16)")
		mode     = flag.String("mode", "goroutines", "goroutines: one goroutine per write; loop: every write from one loop; cores: one loop per core, each writing its share")
		receive  = flag.String("receive", "", "internal: run as the receiving child, connecting to this address")
	)
	flag.Parse()
	if *receive != "" {
		receiveAll(*receive, *n, *rounds, *size)
		return
	}
	if *size < 16 || (*mode != "goroutines" && *mode != "loop" && *mode != "cores") {
		log.Fatal("-size must be at least 16 and -mode goroutines, loop or cores")
	}
	send(*n, *rounds, *size, *interval, *mode)
}

// send accepts the child's connections and runs the rounds.
func send(n, rounds, size int, interval time.Duration, mode string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-receive", ln.Addr().String(), "-connections", fmt.Sprint(n), "-rounds", fmt.Sprint(rounds), "-size", fmt.Sprint(size))
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	if err := child.Start(); err != nil {
		log.Fatal(err)
	}
	conns := make([]net.Conn, 0, n)
	for len(conns) < n {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		conns = append(conns, c)
	}
	fmt.Printf("%d connections, %d rounds of %d bytes, writes: %s\n", n, rounds, size, mode)
	for range rounds {
		time.Sleep(interval)
		start := time.Now()
		msg := make([]byte, size)
		binary.LittleEndian.PutUint64(msg, uint64(start.UnixNano()))
		var wg sync.WaitGroup
		switch mode {
		case "loop":
			for _, c := range conns {
				c.Write(msg)
			}
		case "cores":
			share := (len(conns) + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0)
			for part := range slices.Chunk(conns, share) {
				wg.Go(func() {
					for _, c := range part {
						c.Write(msg)
					}
				})
			}
		default:
			for _, c := range conns {
				wg.Go(func() { c.Write(msg) })
			}
		}
		wg.Wait()
	}
	if err := child.Wait(); err != nil {
		log.Fatal(err)
	}
}

// receiveAll opens n connections, reads rounds messages on each and
// prints the latencies.
func receiveAll(addr string, n, rounds, size int) {
	// Each reader keeps its own latencies: no lock shared by 10,000
	// goroutines between two reads.
	perConn := make([][]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			log.Fatal(err)
		}
		wg.Go(func() {
			defer c.Close()
			r := bufio.NewReaderSize(c, size)
			msg := make([]byte, size)
			lat := make([]time.Duration, 0, rounds)
			for range rounds {
				if _, err := io.ReadFull(r, msg); err != nil {
					log.Fatal(err)
				}
				lat = append(lat, time.Since(time.Unix(0, int64(binary.LittleEndian.Uint64(msg)))))
			}
			perConn[i] = lat
		})
	}
	wg.Wait()
	lat := slices.Concat(perConn...)
	slices.Sort(lat)
	q := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(10 * time.Microsecond)
	}
	fmt.Printf("deliveries %d: p50 %v, p90 %v, p99 %v, max %v (round start → message read)\n", len(lat), q(0.50), q(0.90), q(0.99), lat[len(lat)-1].Round(10*time.Microsecond))
}
