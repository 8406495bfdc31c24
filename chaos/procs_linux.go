package chaos

import "syscall"

// childAttr makes a child process die with the drill, even when the drill
// itself is killed: no Herald or redis-server is left behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
