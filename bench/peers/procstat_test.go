package main

import (
	"net"
	"os"
	"strings"
	"testing"
)

// statLine is a /proc/PID/stat line of pid 4242, parent 7, with the given
// command name and CPU ticks.
func statLine(comm string, utime, stime, cutime, cstime string) string {
	f := []string{"4242", "(" + comm + ")", "S", "7", "4242", "4242", "0", "-1", "4194560", "100", "0", "0", "0",
		utime, stime, cutime, cstime, "20", "0", "12", "0", "900", "1000000", "500"}
	return strings.Join(f, " ") + "\n"
}

func TestParseStat(t *testing.T) {
	for _, comm := range []string{"herald", "a) b (c", "node main.js", ")"} {
		s, err := parseStat([]byte(statLine(comm, "150", "50", "30", "20")))
		if err != nil {
			t.Fatalf("%q: %v", comm, err)
		}
		if s.ppid != 7 || s.utime != 150 || s.stime != 50 || s.cutime != 30 || s.cstime != 20 || s.cpuSeconds() != 2.5 {
			t.Fatalf("%q: %+v", comm, s)
		}
	}
	for name, line := range map[string]string{
		"no name":      "4242 herald S 7",
		"too short":    "4242 (herald) S 7 1 1 0",
		"not a number": statLine("x", "1e3", "0", "0", "0"),
	} {
		if _, err := parseStat([]byte(line)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestTreeCPU(t *testing.T) {
	stats := map[int]procStat{
		10: {ppid: 1, utime: 100},
		11: {ppid: 10, utime: 50, stime: 50},
		12: {ppid: 11, cutime: 100},
		13: {ppid: 1, utime: 1000}, // not in the tree
	}
	if cpu, ok := treeCPU(10, stats); !ok || cpu != 3 {
		t.Fatalf("tree of 10: %v %v", cpu, ok)
	}
	if cpu, ok := treeCPU(11, stats); !ok || cpu != 2 {
		t.Fatalf("tree of 11: %v %v", cpu, ok)
	}
	if _, ok := treeCPU(99, stats); ok {
		t.Fatal("a process that is gone has a CPU time")
	}
}

func TestReadOwnProcess(t *testing.T) {
	s, err := readStat(os.Getpid())
	if err != nil || s.ppid != os.Getppid() {
		t.Fatalf("own stat %+v, %v", s, err)
	}
	m, err := treeMemory(os.Getpid())
	if err != nil || m.RSS <= 0 || m.HWM < m.RSS {
		t.Fatalf("own memory %+v, %v", m, err)
	}
}

func TestParseStatus(t *testing.T) {
	status := "Name:\therald\nVmPeak:\t  900000 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t9\n"
	m, err := parseStatus([]byte(status))
	if err != nil || m.RSS != 100<<20 || m.HWM != 200<<20 {
		t.Fatalf("%+v, %v", m, err)
	}
	for _, bad := range []string{"Name:\tx\n", "VmHWM:\t1 kB\nVmRSS:\tx kB\n", "VmHWM:\t1 MB\nVmRSS:\t1 kB\n"} {
		if _, err := parseStatus([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestListeningInodes(t *testing.T) {
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:2352 00000000:0000 0A 00000000:00000000 00:00000000 00000000   999        0 5551 1 0000000000000000 100 0 0 10 0
   1: 0100007F:18EB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 6661 1 0000000000000000 100 0 0 10 0
   2: 0100007F:2352 0100007F:C350 01 00000000:00000000 00:00000000 00000000   999        0 7771 1 0000000000000000 20 4 30 10 -1
`
	if got := listeningInodes([]byte(table), 9042); len(got) != 1 || got[0] != "5551" {
		t.Fatalf("9042: %v", got)
	}
	if got := listeningInodes([]byte(table), 6379); len(got) != 1 || got[0] != "6661" {
		t.Fatalf("6379: %v", got)
	}
	if got := listeningInodes([]byte(table), 50000); len(got) != 0 {
		t.Fatalf("50000: %v", got)
	}
}

func TestListeningPIDFindsThisProcess(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	pid, err := listeningPID(l.Addr().(*net.TCPAddr).Port)
	if err != nil || pid != os.Getpid() {
		t.Fatalf("pid %d, %v; want %d", pid, err, os.Getpid())
	}
	l.Close()
	if _, err := listeningPID(l.Addr().(*net.TCPAddr).Port); err == nil {
		t.Fatal("a closed port has a listener")
	}
}
