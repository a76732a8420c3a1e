//go:build unix

package regularfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	fifo := filepath.Join(dir, "fifo")
	fifoLink := filepath.Join(dir, "fifo-link")
	sock := filepath.Join(dir, "sock")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tests := []struct {
		name, path string
		ok         bool
	}{
		{"regular file", file, true},
		{"link to a regular file", link, true},
		{"named pipe", fifo, false},
		{"link to a named pipe", fifoLink, false},
		{"socket", sock, false},
		{"device", os.DevNull, false},
		{"folder", dir, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				data []byte
				err  error
			}
			done := make(chan result, 1)
			go func() {
				data, err := ReadFile(tt.path)
				done <- result{data, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadFile(%s) still blocked after 5s", tt.name)
			}
			if tt.ok {
				if r.err != nil || string(r.data) != "hello" {
					t.Fatalf("ReadFile = %q, %v; want hello", r.data, r.err)
				}
				return
			}
			if !errors.Is(r.err, ErrNotRegular) {
				t.Fatalf("ReadFile = %v; want ErrNotRegular", r.err)
			}
		})
	}
}
