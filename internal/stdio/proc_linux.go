package stdio

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// beforeStart prepares to start a server: it marks every descriptor above stderr
// close-on-exec, so that descriptors mcp-fuzz inherited from its own parent do
// not reach the server.
func beforeStart() { closeOnExec("/proc/self/fd") }

func sysProcAttr() *syscall.SysProcAttr {
	// Pdeathsig kills the server if mcp-fuzz dies without stopping it (it fires
	// when the thread that started the child exits; the Go runtime keeps its
	// threads).
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// groupAlive reports whether any process in the group pgid is still running.
// Zombies do not count: they are dead, and reaping them is their parent's business.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	d, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return true
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		if state, pgrp, ok := parseStat(data); ok && pgrp == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// parseStat returns the state and process group of a /proc/PID/stat line:
// "pid (comm) state ppid pgrp ...", where comm may contain anything.
func parseStat(data []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pgrp, true
}
