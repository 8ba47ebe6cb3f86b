package password

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// A new process's first argon2id hash writes ArgonMemoryKiB of memory the kernel has never given it:
// one or two page faults for every page, which make a cold instance's first hash markedly slower than a
// warm one, the more so on a Firecracker VM (docs/PERFORMANCE.md). Prepare takes those faults ahead,
// while the request that will hash waits for DynamoDB: it writes a buffer of the hash's size and
// collects it, so that the Go heap holds a free run of resident pages that argon2's allocation of the
// same size takes. Hashes wait for it to end, so that they never race it for fresh memory.
var (
	prepareOnce sync.Once
	preparing   atomic.Bool
	prepared    = make(chan struct{})
)

// Prepare starts, once per process, touching the memory the first hash will use. A Lambda main
// calls it at start-up; a process that never calls it takes the faults in its first hash.
func Prepare() {
	prepareOnce.Do(func() {
		preparing.Store(true)
		go func() {
			defer close(prepared)
			buf := make([]byte, ArgonMemoryKiB<<10)
			for i := 0; i < len(buf); i += os.Getpagesize() {
				buf[i] = 1
			}
			// buf's last use; the collection frees it now, not when the hash's own allocation would
			// start a cycle.
			runtime.KeepAlive(buf)
			runtime.GC()
		}()
	})
}

// awaitPrepared returns once Prepare's work is done, at once when it was never started.
func awaitPrepared() {
	if preparing.Load() {
		<-prepared
	}
}
