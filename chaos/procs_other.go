//go:build !linux

package chaos

import "syscall"

// childAttr: outside Linux, children are ended by the drill's cleanup only.
func childAttr() *syscall.SysProcAttr { return nil }
