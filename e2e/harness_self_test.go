//go:build e2e

package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// recordingTB is a testing.TB whose Errorf is recorded instead of failing.
type recordingTB struct {
	testing.TB
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestCheckNoOrphansReportsLeftovers checks the orphan check itself: a live
// process group leader is found by its PID, another member of its group by
// the group ID, both are reported and killed.
func TestCheckNoOrphansReportsLeftovers(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	leader := exec.Command(sleep, "60")
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := leader.Process.Pid
	member := exec.Command(sleep, "61")
	member.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if err := member.Start(); err != nil {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = leader.Wait()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = leader.Wait()
		_ = member.Wait()
	})

	rec := &recordingTB{TB: t}
	waitNoOrphans(rec, 200*time.Millisecond, pgid)
	if len(rec.errs) != 2 {
		t.Fatalf("want 2 reported processes, got %d: %q", len(rec.errs), rec.errs)
	}
	for _, e := range rec.errs {
		if !strings.Contains(e, "sleep 6") {
			t.Errorf("report does not name the command: %s", e)
		}
	}
	// Both were killed by the check: they exit at once.
	done := make(chan struct{})
	go func() { _ = leader.Wait(); _ = member.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the processes reported were not killed")
	}
	rec = &recordingTB{TB: t}
	waitNoOrphans(rec, 200*time.Millisecond, pgid)
	if len(rec.errs) != 0 {
		t.Errorf("after the kill: %q", rec.errs)
	}
}

// TestListenSockets checks the /proc/net/tcp parser used by
// assertLoopbackOnly on lines in the kernel's format.
func TestListenSockets(t *testing.T) {
	const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4 1 0000000000000000 100 0 0 10 0
   4: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5 1 0000000000000000 100 0 0 10 0
   5: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 6 1 0000000000000000 100 0 0 10 0
   6: 0000000000000000FFFF00000100007F:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7 1 0000000000000000 100 0 0 10 0
`
	file := filepath.Join(t.TempDir(), "tcp")
	if err := os.WriteFile(file, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	socks, err := listenSockets(file, 0x1F90)
	if err != nil {
		t.Fatal(err)
	}
	want := []net.IP{
		net.ParseIP("127.0.0.1"), net.ParseIP("0.0.0.0"),
		net.ParseIP("::1"), net.ParseIP("::"), net.ParseIP("127.0.0.1"),
	}
	wantInodes := []string{"1", "2", "5", "6", "7"}
	if len(socks) != len(want) {
		t.Fatalf("got %v, want %v", socks, want)
	}
	for i := range want {
		if !socks[i].ip.Equal(want[i]) || socks[i].inode != wantInodes[i] {
			t.Errorf("socket %d = %v inode %s, want %v inode %s", i, socks[i].ip, socks[i].inode, want[i], wantInodes[i])
		}
	}
}
