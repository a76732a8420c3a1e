//go:build !linux

package boot

import "time"

// threadCPU is the processor time the calling OS thread has used, or 0
// where that is not known.
func threadCPU() time.Duration { return 0 }
