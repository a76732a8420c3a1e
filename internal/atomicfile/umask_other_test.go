//go:build !unix

package atomicfile

func umask(int) int { return 0 }
