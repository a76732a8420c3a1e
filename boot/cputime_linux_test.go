package boot

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU is the processor time the calling OS thread has used, or 0
// where that is not known. Unlike the time on the clock, it does not grow
// while the thread waits for a core that other processes hold. (getrusage
// counts it in scheduler ticks, too coarse for one boot.)
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
