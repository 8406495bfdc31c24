//go:build unix

package wsload

import "syscall"

// RaiseFileLimit raises the process's soft limit of open files to its hard
// limit and returns the limit in force.
func RaiseFileLimit() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	if l.Cur < l.Max {
		raised := l
		raised.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
			return uint64(l.Cur), err
		}
		l = raised
	}
	return uint64(l.Cur), nil
}
