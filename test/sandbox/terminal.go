package main

import (
	"os"
	"os/signal"
	"syscall"
	"unsafe"
)

// takeTerminal makes this process the leader of a new process group and
// that group the terminal's foreground group, when it runs in the
// foreground of one. Ctrl-C then reaches the sandbox (and what it starts)
// and not the make that ran it: GNU make, interrupted, always dies by the
// signal itself (status 130) however cleanly its recipe ends, so `make
// demo` could never end with status 0. The returned function hands the
// terminal back.
func takeTerminal() (restore func()) {
	noop := func() {}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return noop // no controlling terminal: nothing to take
	}
	fd := tty.Fd()
	prev, err := foregroundGroup(fd)
	if err != nil || prev != syscall.Getpgrp() {
		tty.Close() // in the background: leave the terminal alone
		return noop
	}
	// A background group that sets the foreground group gets SIGTTOU.
	signal.Ignore(syscall.SIGTTOU)
	if err := syscall.Setpgid(0, 0); err != nil {
		tty.Close()
		return noop
	}
	if err := setForegroundGroup(fd, syscall.Getpid()); err != nil {
		_ = syscall.Setpgid(0, prev)
		tty.Close()
		return noop
	}
	return func() {
		_ = setForegroundGroup(fd, prev)
		tty.Close()
	}
}

func foregroundGroup(fd uintptr) (int, error) {
	var pgrp int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp))); errno != 0 {
		return 0, errno
	}
	return int(pgrp), nil
}

func setForegroundGroup(fd uintptr, pgrp int) error {
	p := int32(pgrp)
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&p))); errno != 0 {
		return errno
	}
	return nil
}
