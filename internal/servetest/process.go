package servetest

import (
	"bufio"
	"io"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"
)

var listening = regexp.MustCompile(`listening on (https?://\S+)`)

// Process starts the lore binary bin as lore serve with args (which
// should give --addr 127.0.0.1:0) in the environment env, and returns the
// address it says it listens on and the lines it wrote on standard error
// before that. When the test ends it is stopped with SIGTERM, and it must
// exit 0 within 15 s.
func Process(t testing.TB, bin string, env []string, args ...string) (string, []string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var head []string
	addr := ""
	for addr == "" && sc.Scan() {
		head = append(head, sc.Text())
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("lore serve said nowhere it listens: %q", head)
	}
	go io.Copy(io.Discard, stderr)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("lore serve after SIGTERM: %v, want exit 0", err)
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Error("lore serve did not stop within 15 s of SIGTERM")
		}
	})
	return addr, head
}
