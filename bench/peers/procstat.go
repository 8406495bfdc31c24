package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat: 100
// on every Linux architecture Go supports.
const clockTicks = 100

// procStat is what the benchmark reads of /proc/PID/stat.
type procStat struct {
	ppid int
	// utime, stime: the process's own CPU time (all its threads);
	// cutime, cstime: that of its children it has waited for. In clock ticks.
	utime, stime, cutime, cstime uint64
}

// cpuSeconds is the process's CPU time with its waited-for children's.
func (s procStat) cpuSeconds() float64 {
	return float64(s.utime+s.stime+s.cutime+s.cstime) / clockTicks
}

// parseStat reads one /proc/PID/stat line. The command name, field 2, is
// in parentheses and may hold spaces and parentheses itself, so the fields
// are counted from the last ')'.
func parseStat(b []byte) (procStat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return procStat{}, errors.New("stat: no command name")
	}
	f := strings.Fields(string(b[end+1:]))
	// f[0] is field 3 (state): field k is f[k-3].
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("stat: %d fields after the name, want at least 15", len(f))
	}
	var s procStat
	var err error
	num := func(field int) uint64 {
		v, e := strconv.ParseUint(f[field-3], 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("stat: field %d %q: %w", field, f[field-3], e)
		}
		return v
	}
	s.ppid = int(num(4))
	s.utime, s.stime, s.cutime, s.cstime = num(14), num(15), num(16), num(17)
	return s, err
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

// readAllStats reads the stat of every process, in one pass over /proc.
func readAllStats() map[int]procStat {
	stats := map[int]procStat{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := readStat(pid); err == nil {
			stats[pid] = s
		}
	}
	return stats
}

// treeOf returns root and its descendants among stats, found through
// their parent ids.
func treeOf(root int, stats map[int]procStat) []int {
	children := map[int][]int{}
	for pid, s := range stats {
		if pid != root {
			children[s.ppid] = append(children[s.ppid], pid)
		}
	}
	pids := []int{root}
	for i := 0; i < len(pids); i++ {
		pids = append(pids, children[pids[i]]...)
	}
	return pids
}

// treeCPU is the CPU seconds root and its descendants had used when stats
// were read; ok is false when root was not among them.
func treeCPU(root int, stats map[int]procStat) (cpu float64, ok bool) {
	if _, ok := stats[root]; !ok {
		return 0, false
	}
	for _, pid := range treeOf(root, stats) {
		cpu += stats[pid].cpuSeconds()
	}
	return cpu, true
}

// memory is a process's resident set now and at its peak, in bytes.
type memory struct {
	RSS int64 `json:"rss_bytes"`
	HWM int64 `json:"peak_rss_bytes"`
}

// parseStatus reads VmRSS and VmHWM from a /proc/PID/status.
func parseStatus(b []byte) (memory, error) {
	var m memory
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || key != "VmRSS" && key != "VmHWM" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("status: %s: %q", key, rest)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("status: %s: %w", key, err)
		}
		if key == "VmRSS" {
			m.RSS = kb << 10
		} else {
			m.HWM = kb << 10
		}
		found++
	}
	if found != 2 {
		return m, errors.New("status: no VmRSS and VmHWM")
	}
	return m, nil
}

// treeMemory adds up the memory of root and its descendants (their peaks
// need not have coincided: the sum of peaks bounds the peak of the sum).
func treeMemory(root int) (memory, error) {
	var total memory
	for i, pid := range treeOf(root, readAllStats()) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
		var m memory
		if err == nil {
			m, err = parseStatus(b)
		}
		if err != nil {
			if i == 0 {
				return memory{}, err
			}
			continue
		}
		total.RSS += m.RSS
		total.HWM += m.HWM
	}
	return total, nil
}

// listeningInodes returns the socket inodes listening on port in the
// contents of /proc/net/tcp or tcp6.
func listeningInodes(table []byte, port int) []string {
	var inodes []string
	sc := bufio.NewScanner(bytes.NewReader(table))
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// sl local_address rem_address st ... inode is field 10.
		if len(f) < 10 || f[3] != "0A" { // 0A: LISTEN
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port {
			inodes = append(inodes, f[9])
		}
	}
	return inodes
}

// listeningPID finds the process listening on TCP port: a service this
// program did not start, such as Cassandra, whose CPU it still measures.
func listeningPID(port int) (int, error) {
	want := map[string]bool{}
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if b, err := os.ReadFile(name); err == nil {
			for _, inode := range listeningInodes(b, port) {
				want["socket:["+inode+"]"] = true
			}
		}
	}
	if len(want) == 0 {
		return 0, fmt.Errorf("nothing listens on port %d", port)
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", e.Name(), "fd"))
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join("/proc", e.Name(), "fd", fd.Name())); err == nil && want[link] {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("port %d: no process of ours holds its socket", port)
}
